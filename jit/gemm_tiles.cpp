// The generated GEMM micro-kernels of this process (jit/kernels/gemm_tile.h):
// each tile loaded from the disk cache or else compiled (30-40 ms on the
// 2-core AVX2 machine) and stored there, once, on the thread that first asks
// for it, and kept (with its code) for the process's life.
#include <mutex>
#include <vector>

#include <kiln/error.h>

#include "jit/compile_pipeline.h"
#include "jit/kernels/gemm_tile.h"
#include "jit/orc/session.h"
#include "jit/tier1/disk_cache.h"

namespace kiln::jit::kernels {

bool tile_fits(int vector_bytes, int mr, int nv) {
  const int registers = vector_bytes == 64 ? 32 : 16;
  return mr >= 1 && nv >= 1 && nv <= 9 && mr * nv + nv + 1 <= registers;  // nv <= 9: tile_code
}

GemmMicroFn generated_gemm_tile(const GemmTileSpec& spec) {
  if (!tile_fits(spec.vector_bytes, spec.mr, spec.nv))
    throw ValueError(detail::cat("gemm tile ", spec.mr, "x", spec.nv, " does not fit the registers of ",
                                 spec.vector_bytes, "-byte vectors"));
  struct Tile {
    GemmTileSpec spec;
    LinkedKernel kernel;
  };
  static std::mutex mutex;
  static auto* tiles = new std::vector<Tile>();  // leaked: kernels may run while static destructors do
  // The linked symbol has GemmMicroFn's signature (codegen::lower_gemm_tile),
  // not the CompiledFn a LinkedKernel names.
  auto micro = [](const Tile& t) { return reinterpret_cast<GemmMicroFn>(reinterpret_cast<void (*)()>(t.kernel.fn)); };
  const std::lock_guard lock(mutex);
  for (const Tile& t : *tiles)
    if (t.spec == spec) return micro(t);
  const std::uint64_t key = gemm_tile_key(spec);
  OrcSession& orc = OrcSession::instance();
  LinkedKernel kernel = disk_cache_load(key, orc);
  if (!kernel.fn) {
    CompiledKernel compiled = orc.compile_gemm_tile(spec);
    disk_cache_store(key, 3, compiled.object, orc);
    kernel = std::move(compiled);
  }
  tiles->push_back({spec, std::move(kernel)});
  return micro(tiles->back());
}

}  // namespace kiln::jit::kernels

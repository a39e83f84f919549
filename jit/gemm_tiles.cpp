// The generated GEMM micro-kernels of this process (jit/kernels/gemm_tile.h):
// each tile loaded from the disk cache or else compiled (73-89 ms cold on
// the 2-core AVX2 machine, 0.1-0.2 ms from the cache) and stored there,
// once, and kept (with its code) for the process's life. No lock is held
// while a tile compiles, so a thread asking whether a tile is ready never
// waits for another's compile.
//
// A default tile is compiled only once it pays for itself: the products
// that wanted it have run long enough on the hand-written kernel that the
// tile's gain would have repaid its compile. Before that rule, one training
// step of the residual stack (memory_bench's peak_rss row, cache off) paged
// in LLVM's compiler for the tile: 20.9 MiB of file-backed pages and 2.5
// MiB of heap, peak RSS growth 63.5 -> 81.9 MiB.
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include <kiln/error.h>

#include "jit/compile_pipeline.h"
#include "jit/kernels/gemm_tile.h"
#include "jit/orc/session.h"
#include "jit/tier1/config.h"
#include "jit/tier1/disk_cache.h"
#include "jit/tier1/kernel_cache.h"

namespace kiln::jit::kernels {
namespace {

struct Tile {
  GemmTileSpec spec;
  LinkedKernel kernel;
};

// The compile's cost (73-89 ms cold) over what the tile gains on the
// hand-written kernel (measured 0.97-1.14x at one thread, 1.02-1.13x at
// two, nine products of 32-2048 rows): about 1.6 s of products.
constexpr double kCompileMs = 80;
constexpr double kExpectedGain = 0.05;
constexpr std::int64_t kBreakEvenNs = static_cast<std::int64_t>(kCompileMs / kExpectedGain * 1e6);

// A tile ready_gemm_tile was asked for: the time products spent without
// it, and whether its compile was queued (then it is compiled, compiling or
// failed).
struct Wanted {
  GemmTileSpec spec;
  std::int64_t waited_ns = 0;
  bool on_disk = false;  // loading it costs 0.1-0.2 ms: worth it at once
  bool queued = false;
};

struct Registry {
  std::mutex mutex;
  std::vector<Tile> tiles;
  std::vector<Wanted> wanted;
};

Registry& registry() {
  static auto* r = new Registry();  // leaked: kernels may run while static destructors do
  return *r;
}

// The linked symbol has GemmMicroFn's signature (codegen::lower_gemm_tile),
// not the CompiledFn a LinkedKernel names. Under the registry's lock.
GemmMicroFn find(const Registry& r, const GemmTileSpec& spec) {
  for (const Tile& t : r.tiles)
    if (t.spec == spec) return reinterpret_cast<GemmMicroFn>(reinterpret_cast<void (*)()>(t.kernel.fn));
  return nullptr;
}

// The record of a tile asked for, made (and the disk cache looked at) on
// the first ask. Under the registry's lock.
Wanted& wanted(Registry& r, const GemmTileSpec& spec) {
  for (Wanted& w : r.wanted)
    if (w.spec == spec) return w;
  return r.wanted.emplace_back(Wanted{spec, 0, disk_cache_has(gemm_tile_key(spec))});
}

// Whether to compile a wanted tile now. Where segments skip their
// break-even test (KILN_JIT_SYNC=1, an explicit hot threshold), so do tiles.
bool worth_compiling(const Wanted& w) {
  return compile_sync() || hot_threshold_is_explicit() || w.on_disk || w.waited_ns >= kBreakEvenNs;
}

LinkedKernel load_or_compile(const GemmTileSpec& spec) {
  const std::uint64_t key = gemm_tile_key(spec);
  OrcSession& orc = OrcSession::instance();
  LinkedKernel kernel = disk_cache_load(key, orc);
  if (kernel.fn) return kernel;
  CompiledKernel compiled = orc.compile_gemm_tile(spec);
  disk_cache_store(key, 3, compiled.object, orc);
  return compiled;
}

}  // namespace

bool tile_fits(int vector_bytes, int mr, int nv) {
  const int registers = vector_bytes == 64 ? 32 : 16;
  return mr >= 1 && nv >= 1 && nv <= 9 && mr * nv + nv + 1 <= registers;  // nv <= 9: tile_code
}

GemmMicroFn generated_gemm_tile(const GemmTileSpec& spec) {
  if (!tile_fits(spec.vector_bytes, spec.mr, spec.nv))
    throw ValueError(detail::cat("gemm tile ", spec.mr, "x", spec.nv, " does not fit the registers of ",
                                 spec.vector_bytes, "-byte vectors"));
  Registry& r = registry();
  {
    const std::lock_guard lock(r.mutex);
    if (GemmMicroFn fn = find(r, spec)) return fn;
  }
  LinkedKernel kernel = load_or_compile(spec);
  const std::lock_guard lock(r.mutex);
  if (GemmMicroFn fn = find(r, spec)) return fn;  // another thread's compile finished first
  r.tiles.push_back({spec, std::move(kernel)});
  return find(r, spec);
}

GemmMicroFn ready_gemm_tile(const GemmTileSpec& spec) {
  Registry& r = registry();
  {
    const std::lock_guard lock(r.mutex);
    if (GemmMicroFn fn = find(r, spec)) return fn;
    Wanted& w = wanted(r, spec);
    if (w.queued || !enabled() || !worth_compiling(w)) return nullptr;
    w.queued = true;
  }
  run_in_background([spec] {
    try {
      generated_gemm_tile(spec);
    } catch (const Error&) {
      // Stays queued and never ready: the hand-written kernel serves.
    }
  });
  const std::lock_guard lock(r.mutex);
  return find(r, spec);  // compiled already under KILN_JIT_SYNC=1
}

void ran_without_tile(const GemmTileSpec& spec, std::int64_t ns) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  wanted(r, spec).waited_ns += ns;
}

}  // namespace kiln::jit::kernels

// Register tiles beyond the hand-written ones (gemm_microkernel.h): a
// micro-kernel generated through LLVM for any mr × nv tile that fits the
// ISA's vector registers (emitted by jit/codegen/emit_gemm_tile.*, compiled
// and kept by jit/gemm_tiles.cpp). The tuner's "tile" knob picks one
// (GemmConfig::tile); the hand-written tile needs no compile, so it is the
// default that every product can run at once.
#pragma once

#include <cstdint>

namespace kiln::jit::kernels {

/// One generated micro-kernel: element and vector sizes and the tile.
struct GemmTileSpec {
  int element_bytes;  // 4 or 8
  int vector_bytes;   // 32 (AVX2) or 64 (AVX-512)
  int mr;             // rows of C
  int nv;             // vectors of C per row: nr = nv · vector_bytes / element_bytes columns

  friend bool operator==(const GemmTileSpec&, const GemmTileSpec&) = default;
};

/// Whether mr × nv accumulators, nv B vectors and one broadcast fit the
/// vector registers of the ISA with vectors of `vector_bytes` (16 ymm for
/// AVX2, 32 zmm for AVX-512).
bool tile_fits(int vector_bytes, int mr, int nv);

/// GemmConfig::tile of a tile (10 · mr + nv), and back.
constexpr int tile_code(int mr, int nv) { return 10 * mr + nv; }
constexpr int tile_mr(int code) { return code / 10; }
constexpr int tile_nv(int code) { return code % 10; }

/// C[rows×cols] (+)= A panel · B panel, as MicroKernel::run
/// (gemm_microkernel.h) for this tile: `a` holds kc steps of mr values,
/// `b` kc steps of nr values; `accumulate` is 0 or 1.
using GemmMicroFn = void (*)(std::int64_t kc, const void* a, const void* b, void* c, std::int64_t rs_c,
                             std::int64_t cs_c, std::int32_t rows, std::int32_t cols, std::int32_t accumulate);

/// The micro-kernel of `spec`, compiled at the first call that asks for it
/// (tens of milliseconds, once per process) and kept. Throws ValueError for
/// a tile that does not fit, InternalError if LLVM fails.
GemmMicroFn generated_gemm_tile(const GemmTileSpec& spec);

/// The micro-kernel of `spec` if it is compiled already, else nullptr
/// after queuing its compile as background work of the JIT when it is worth
/// it: only while the JIT is on, and once the tile is in the disk cache or
/// the products that wanted it have spent (ran_without_tile) about 1.6 s,
/// what its compile costs over what it gains; at once under KILN_JIT_SYNC=1
/// (which compiles it here and returns it) or an explicit
/// KILN_HOT_THRESHOLD. A thread that queued one waits for it when it exits,
/// as for every compile. For a default that must not wait: every tile
/// rounds alike, so the hand-written kernel can serve until the tile is ready.
GemmMicroFn ready_gemm_tile(const GemmTileSpec& spec);
/// Adds `ns`, the time of a product that wanted `spec` and ran without it,
/// to what decides when ready_gemm_tile compiles it.
void ran_without_tile(const GemmTileSpec& spec, std::int64_t ns);

}  // namespace kiln::jit::kernels

// Register and cache blocking of the packed floating-point GEMM, per ISA.
//
// Loop nest (row-major view: A values are broadcast, B rows are vectors):
//   for pc in K step kc:                     one rank-kc update of C
//     for ic in M step mc:                   A[ic:+mc, pc:+kc] packed once, shared by the threads
//       parallel over column blocks jc of nc (and row ranges when few):
//         pack what the task needs of A and of B[pc:+kc, jc:+nc] (fits the
//         core's L2), unless another task has (gemm_float.cpp: PackClaims)
//         for ir in mc step mr:              an mr×kc panel of A stays in L1
//           for jr in nc step nr:            kc×nr panels of B stream from L2
//             micro-kernel: C[mr×nr] (+)= A panel · B panel, in registers
//
// Measured on the 2-core AVX-512 machine (sgemm 1024³, one thread): a 6×4
// vector tile beats 12×2 (188 vs 145 GFLOP/s: fewer loads per FMA) and
// 8×3; kc 384 beats 256 and 512; a B block of 384 KiB beats 192 and 768.
// These are the ISA's defaults; default_gemm_config (gemm_float.cpp)
// shapes them to a product, and a tuned config (jit/tuning) replaces them.
#pragma once

#include <cstdint>

#include "jit/kernels/gemm.h"

namespace kiln::jit::kernels {

/// The register tile of one ISA: mr rows of C by nv vectors of
/// vector_bytes, i.e. mr × nv accumulators, nv B vectors and one
/// broadcast register, within the vector register file.
struct RegisterTile {
  int vector_bytes;
  int mr;
  int nv;
};
inline constexpr RegisterTile kAvx512Tile{64, 6, 4};    // 24 + 4 + 1 of 32 zmm
inline constexpr RegisterTile kAvx2Tile{32, 6, 2};      // 12 + 2 + 1 of 16 ymm
inline constexpr RegisterTile kBaselineTile{16, 4, 2};  // 8 + 2 + 1 of 16 xmm (SSE2)

struct GemmBlocking {
  int mr;           // rows of C per micro-tile
  int nr;           // columns of C per micro-tile
  std::int64_t kc;  // depth of a packed block
  std::int64_t nc;  // columns of a packed B block: kc×nc elements, 384 KiB
  std::int64_t mc;  // rows of a packed A block: mc×kc elements
};

template <class T>
constexpr GemmBlocking gemm_blocking(RegisterTile tile) {
  const int nr = tile.nv * tile.vector_bytes / static_cast<int>(sizeof(T));
  const std::int64_t kc = 1536 / sizeof(T);  // 384 floats, 192 doubles
  const std::int64_t nc = (384 * 1024) / (kc * sizeof(T)) / nr * nr;
  return {tile.mr, nr, kc, nc, 1536};
}

/// The blocking `config` asks for; a zero block is the heuristic's: the
/// depth split into equal blocks of at most 4/3 the ISA's kc (no thin
/// remainder block), B blocks of the ISA's size in bytes, the ISA's mc;
/// and where that makes fewer than two column blocks a thread of `n`
/// columns wide enough for a register tile a thread, as many blocks of
/// equal width as there are threads: each thread then packs B panels of
/// its own instead of sharing one block's.
GemmBlocking blocking_for(const GemmConfig& config, GemmBlocking isa, std::int64_t k, std::int64_t n,
                          std::int64_t threads);

/// Whether `threads` take parts of the depth, each multiplied into a C of
/// its own and summed after, rather than blocks of C: `serial` (the
/// blocking of one thread) makes fewer column blocks than threads, which
/// would split C's rows and share every packed block of B, or split thin
/// columns; and the depth has a block for each thread. (A convolution's
/// weight gradient, C 32x144 over a depth of 6272 positions: at 2 threads
/// on the AVX-512 machine the row split ran 2.1x slower than one thread,
/// each thread waiting for the other's packing and reading its panels
/// from the other core; the depth split ran 1.7x faster than one thread.)
bool splits_depth(const GemmBlocking& serial, std::int64_t n, std::int64_t k, std::int64_t threads);

}  // namespace kiln::jit::kernels

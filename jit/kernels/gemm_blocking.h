// Register and cache blocking of the packed floating-point GEMM, per ISA.
//
// Loop nest (row-major view: A rows are broadcast, B columns are vectors):
//   for pc in K step kc:                     one rank-kc update of C
//     for ic in M step mc:                   pack A[ic:+mc, pc:+kc] (shared, in L3)
//       parallel over column blocks jc of nc (and row ranges when few):
//         pack B[pc:+kc, jc:+nc]             (per task, fits the core's L2)
//         for ir in mc step mr:              an mr×kc panel of A stays in L1
//           for jr in nc step nr:            kc×nr panels of B stream from L2
//             micro-kernel: C[mr×nr] (+)= A panel · B panel, in registers
// The tile mr×nr is sized to the vector register file: mr×(nr/lanes)
// accumulators plus nr/lanes B vectors and one broadcast register.
#pragma once

#include <cstdint>

namespace kiln::jit::kernels {

struct GemmBlocking {
  int mr;           // rows of C per micro-tile (A values broadcast per k step)
  int nr;           // columns of C per micro-tile (B vectors loaded per k step)
  std::int64_t kc;  // depth of a packed block
  std::int64_t nc;  // columns of a packed B block: kc×nc elements in L2
  std::int64_t mc;  // rows of a packed A block: mc×kc elements in L3
};

/// `lanes`: elements per vector register; `element_bytes`: sizeof(T).
/// 32 registers (AVX-512) take a 12 × 2-vector tile (24 accumulators);
/// 16 registers (AVX2, SSE2) a 6 × 2 or 4 × 2 one. kc keeps a B panel and
/// an A panel around 48 KiB together (the L1 of the machines we target is
/// 32-48 KiB); nc keeps a B block near 384 KiB (half a 1-2 MiB L2).
constexpr GemmBlocking gemm_blocking(int registers, int lanes, int element_bytes) {
  const int mr = registers >= 32 ? 12 : lanes >= 8 ? 6 : 4;
  const int nr = 2 * lanes;
  const std::int64_t kc = 1536 / element_bytes;  // 384 floats, 192 doubles
  const std::int64_t nc = (384 * 1024) / (kc * element_bytes) / nr * nr;
  return {mr, nr, kc, nc, 1536};
}

}  // namespace kiln::jit::kernels

// What the CPU kiln runs on can execute, probed once per process. libkiln
// is built for any x86-64 (no -march); the kernels written for AVX2 or
// AVX-512 (GEMM micro-kernels, libmvec's vector math, tier 0's column
// sums) are chosen at run time by these.
#pragma once

namespace kiln::jit::kernels {

/// AVX2 and FMA: libmvec's AVX2 forms, the AVX2 GEMM, vectorized column sums.
bool cpu_has_avx2_fma();
/// AVX-512F and FMA: the AVX-512 GEMM.
bool cpu_has_avx512f_fma();

}  // namespace kiln::jit::kernels

// GEMM for a handful of rows of A (a batch-1 or small-batch linear layer):
// no packing. Packing B costs as much memory traffic as such a product
// itself (each element of B meets only m rows of A), so here B is read
// once, in its memory order, in chunks that stay in cache while every block
// of rows reads them. Measured on the 784-512-512-10 MLP at batch 1: 1 ms
// per call with packing, which is what LibTorch's GEMV path avoids.
#pragma once

#include <cstdint>

#include "jit/kernels/gemm.h"

namespace kiln::jit::kernels {

/// Rows of A up to which the heuristic (default_gemm_config) takes this
/// path; the tuner may choose it for up to kFewRowsTunable rows. Measured
/// on AVX2 (relu(linear) and mm, x of m rows by 512 x 512, 1 and 2
/// threads): this path wins over the packed GEMM by 1.2-2.4x up to 16 rows
/// and loses 10-20% at 32.
inline constexpr std::int64_t kFewRows = 16;
inline constexpr std::int64_t kFewRowsTunable = 32;

/// C = A · B (then `epilogue` on column blocks) for a few rows m, when A's
/// rows are contiguous and B's columns are (B = Wᵀ of a row-major W, as a
/// linear layer has) or B's rows and C's rows are. False, and nothing
/// written, for other layouts. `variant` is the vector ISA to use (not Best).
bool gemm_few_rows(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const float> a,
                   MatrixRef<const float> b, MatrixRef<float> c, const GemmEpilogue* epilogue, GemmVariant variant);
bool gemm_few_rows(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const double> a,
                   MatrixRef<const double> b, MatrixRef<double> c, const GemmEpilogue* epilogue,
                   GemmVariant variant);

}  // namespace kiln::jit::kernels

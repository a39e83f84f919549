// GEMM for a handful of rows of A (a batch-1 or small-batch linear layer),
// or of columns of B (a classifier head): no packing. With few rows,
// packing B costs as much memory traffic as the product itself (each
// element of B meets only m rows of A), so here B is read once, in its
// memory order, in chunks that stay in cache while every block of rows
// reads them; with few columns, the packed GEMM would pad C to its tile. Measured on the 784-512-512-10 MLP at batch 1: 1 ms
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

/// Columns of C up to which the heuristic takes this path for any number
/// of rows when A's rows and B's columns are contiguous (`dots_layout`: a
/// classifier head, x · Wᵀ with W of a few rows), blocks of rows split
/// over the threads where they give more tasks than the columns; the tuner
/// may choose it up to kFewColumnsTunable. The
/// packed GEMM pads such a product to its tile's 48 or 64 columns.
/// Measured on AVX-512 (kiln::matmul, median of 1000): 128 x 10 x 512
/// 51 -> 12 us on one thread, 58 -> 12 on two (OpenBLAS 22 on one);
/// 256 x n x 512 on one thread 98 -> 19/37/74/107 us at n = 8/16/32/48;
/// at 32 columns it loses where k is small (256 x 32 x 128: 26 -> 39 us),
/// at 16 only by 6 % at k = 64.
inline constexpr std::int64_t kFewColumns = 16;
inline constexpr std::int64_t kFewColumnsTunable = 32;

/// A's rows and B's columns contiguous: C's elements are dot products of
/// contiguous rows, the layout the few-columns case needs.
inline bool dots_layout(const GemmShape& shape) { return shape.a_rows_contiguous && !shape.b_rows_contiguous; }

/// C = A · B (then `epilogue` on blocks) for a few rows m or columns n, when A's
/// rows are contiguous and B's columns are (B = Wᵀ of a row-major W, as a
/// linear layer has) or B's rows and C's rows are. False, and nothing
/// written, for other layouts. `variant` is the vector ISA to use (not Best).
bool gemm_few_rows(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const float> a,
                   MatrixRef<const float> b, MatrixRef<float> c, const GemmEpilogue* epilogue, GemmVariant variant);
bool gemm_few_rows(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const double> a,
                   MatrixRef<const double> b, MatrixRef<double> c, const GemmEpilogue* epilogue,
                   GemmVariant variant);

}  // namespace kiln::jit::kernels

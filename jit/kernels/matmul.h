// The batched matmul driver behind the MatMul kernel, also called by tier 1
// with an epilogue: a fused elementwise kernel applied to each finished
// block of the product while it is in cache (jit/tier1/matmul_epilogue.h).
#pragma once

#include <cstdint>

#include "jit/kernels/kernel.h"

namespace kiln::jit::kernels {

/// Called per finished block of matrix `batch` of the product (its index
/// row-major over the batch dims): rows [row, row + rows), columns
/// [col, col + cols). Blocks are disjoint; several threads may call at once.
struct MatmulEpilogue {
  void (*fn)(const void* context, std::int64_t batch, std::int64_t row, std::int64_t rows, std::int64_t col,
             std::int64_t cols);
  const void* context;
};

/// out = a @ b over [..., M, K] @ [..., K, N] with broadcast batch dims
/// (stride 0); all three of one floating dtype, out not overlapping a or b.
/// With an epilogue, it runs on every block of out once that block is final.
/// `b_content`: what the engine knows of b's bytes (KernelCall::matmul_b).
void matmul_float(const TensorArg& a, const TensorArg& b, const TensorArg& out, const MatmulEpilogue* epilogue,
                  const ContentTag& b_content);

}  // namespace kiln::jit::kernels

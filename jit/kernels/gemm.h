// General matrix multiply on strided matrices: C = A · B, the engine of the
// MatMul kernel. Floating types use a packed, cache-blocked GEMM with a
// vector micro-kernel per ISA (gemm_float.cpp); integers use a blocked loop
// with wrapping arithmetic (gemm_integral.cpp).
#pragma once

#include <cstdint>

namespace kiln::jit::kernels {

/// A strided matrix view; strides in elements, any value (0 for broadcast).
template <class T>
struct MatrixRef {
  T* data;
  std::int64_t row_stride;
  std::int64_t col_stride;

  T& at(std::int64_t i, std::int64_t j) const { return data[i * row_stride + j * col_stride]; }
};

/// Work done on each finished block of C -- rows [row, row + rows) by
/// columns [col, col + cols), after its last rank-kc update -- while the
/// block is still in cache (a fused elementwise epilogue). The blocks are
/// disjoint and cover C; several threads may call `fn` at once.
struct GemmEpilogue {
  void (*fn)(const void* context, std::int64_t row, std::int64_t rows, std::int64_t col, std::int64_t cols);
  const void* context;
};

/// C[m×n] = A[m×k] · B[k×n], overwriting C (k == 0 gives zeros), then
/// `epilogue` (if any) on each finished block. C must not overlap A or B.
/// Uses the kernel threads when the product is large.
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const float> a, MatrixRef<const float> b,
          MatrixRef<float> c, const GemmEpilogue* epilogue = nullptr);
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const double> a, MatrixRef<const double> b,
          MatrixRef<double> c, const GemmEpilogue* epilogue = nullptr);
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const std::int32_t> a,
          MatrixRef<const std::int32_t> b, MatrixRef<std::int32_t> c);
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const std::int64_t> a,
          MatrixRef<const std::int64_t> b, MatrixRef<std::int64_t> c);

/// The compiled variants of the floating-point micro-kernel. gemm() uses
/// the best one the CPU supports; tests force the others with
/// set_gemm_variant (the CPU must support the one forced; Best restores).
enum class GemmVariant { Best, Avx512, Avx2, Baseline };
void set_gemm_variant(GemmVariant variant);

}  // namespace kiln::jit::kernels

// General matrix multiply on strided matrices: C = A · B, the engine of the
// MatMul kernel. Floating types use a packed, cache-blocked GEMM with a
// vector micro-kernel per ISA (gemm_float.cpp); integers use a blocked loop
// with wrapping arithmetic (gemm_integral.cpp).
#pragma once

#include <cstdint>

#include "jit/kernels/content_tag.h"

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

/// Products of at least this many multiply-adds run on the kernel threads;
/// smaller ones on the calling thread (where a config matters less, and
/// which the tuner neither offers a thread split for nor reports).
inline constexpr std::int64_t kGemmParallelWork = std::int64_t{1} << 18;

/// The tunable choices of the floating-point GEMM (the loop nest they
/// shape is drawn in gemm_blocking.h). Any values are correct; they only
/// change the speed. A zero block is the heuristic's choice for the
/// product (gemm_float.cpp, from the ISA's blocking in gemm_blocking.h).
struct GemmConfig {
  std::int64_t kc = 0;       // depth of a packed block
  std::int64_t nc = 0;       // columns of a packed B block (rounded to the register tile's width)
  std::int64_t mc = 0;       // rows of a packed A block
  int tasks_per_thread = 2;  // parallel tasks per kernel thread: column blocks, split by rows when fewer
  bool few_rows = false;     // the unpacked path for a handful of rows or columns (gemm_few_rows.h), where the layout allows
  bool shared_b = false;     // each B block packed once, shared by its row splits, instead of once per task
  int tile = 0;              // a generated register tile, tile_code(mr, nv) (gemm_tile.h); 0: the hand-written one

  friend bool operator==(const GemmConfig&, const GemmConfig&) = default;
};

/// A product as the tuner keys it: element size, whether A's and B's rows
/// are contiguous (else they are read transposed), and the extents.
struct GemmShape {
  int element_bytes;
  bool a_rows_contiguous, b_rows_contiguous;
  std::int64_t m, n, k;
};

/// The heuristic: what gemm() uses for `shape` when nothing was tuned.
GemmConfig default_gemm_config(const GemmShape& shape);

/// C[m×n] = A[m×k] · B[k×n], overwriting C (k == 0 gives zeros), then
/// `epilogue` (if any) on each finished block. C must not overlap A or B.
/// Uses the kernel threads when the product is large, and the tuned
/// config of this shape if there is one (jit/tuning), else the heuristic.
/// With `b_content` known, B packed by an earlier call with the same
/// content and layout may be reused (gemm_prepacked.h).
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const float> a, MatrixRef<const float> b,
          MatrixRef<float> c, const GemmEpilogue* epilogue = nullptr, const ContentTag& b_content = {});
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const double> a, MatrixRef<const double> b,
          MatrixRef<double> c, const GemmEpilogue* epilogue = nullptr, const ContentTag& b_content = {});
/// The same with an explicit config (how the tuner measures a candidate).
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const float> a, MatrixRef<const float> b,
          MatrixRef<float> c, const GemmConfig& config, const GemmEpilogue* epilogue = nullptr);
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const double> a, MatrixRef<const double> b,
          MatrixRef<double> c, const GemmConfig& config, const GemmEpilogue* epilogue = nullptr);
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const std::int32_t> a,
          MatrixRef<const std::int32_t> b, MatrixRef<std::int32_t> c);
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const std::int64_t> a,
          MatrixRef<const std::int64_t> b, MatrixRef<std::int64_t> c);

/// The compiled variants of the floating-point micro-kernel. gemm() uses
/// the best one the CPU supports; tests force the others with
/// set_gemm_variant (the CPU must support the one forced; Best restores).
enum class GemmVariant { Best, Avx512, Avx2, Baseline };
void set_gemm_variant(GemmVariant variant);
/// The variant gemm() runs now (never Best).
GemmVariant current_gemm_variant();

}  // namespace kiln::jit::kernels

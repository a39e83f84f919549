// A loop nest shared by several operands that walk the same logical shape
// with their own strides: the iteration core of the elementwise, reduction
// and index kernels.
#pragma once

#include <algorithm>
#include <cstdint>

#include "trace/geometry.h"

namespace kiln::jit::kernels {

struct StridedLoop {
  static constexpr int kMaxOperands = 4;  // an output and up to three inputs

  int ndim = 0;
  int operands = 0;
  std::int64_t sizes[trace::kMaxDims] = {};
  // [operand][dim], in the unit the caller chose: bytes for the dtype-agnostic
  // drivers, elements where one element type is known.
  std::int64_t strides[kMaxOperands][trace::kMaxDims] = {};

  std::int64_t numel() const {
    std::int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= sizes[d];
    return n;
  }
  /// Stride of operand `k` along the innermost dim (the one runs follow).
  std::int64_t inner_stride(int k) const { return strides[k][ndim - 1]; }

  /// Drops size-1 dims and merges neighbouring dims that every operand walks
  /// as one, keeping row-major order (so positions keep their meaning).
  /// Leaves at least one dim, so that runs always have an inner stride.
  void coalesce();
};

/// Calls `run(offsets, first, length)` for each stretch of the innermost dim
/// covering the row-major positions [begin, end): offsets[k] is the
/// offset of operand k at position `first`, and the run goes on for `length`
/// elements with inner_stride(k).
template <class Run>
void for_each_run(const StridedLoop& loop, std::int64_t begin, std::int64_t end, Run&& run) {
  if (begin >= end) return;
  const int nd = loop.ndim, ops = loop.operands, inner = nd - 1;
  std::int64_t index[trace::kMaxDims];
  std::int64_t offsets[StridedLoop::kMaxOperands] = {};
  std::int64_t rest = begin;
  for (int d = inner; d >= 0; --d) {
    index[d] = rest % loop.sizes[d];
    rest /= loop.sizes[d];
    for (int k = 0; k < ops; ++k) offsets[k] += index[d] * loop.strides[k][d];
  }
  for (std::int64_t pos = begin;;) {
    const std::int64_t length = std::min(loop.sizes[inner] - index[inner], end - pos);
    run(static_cast<const std::int64_t*>(offsets), pos, length);
    pos += length;
    if (pos >= end) return;
    // The run ended at the end of the inner dim: carry into the outer dims.
    for (int k = 0; k < ops; ++k) offsets[k] -= index[inner] * loop.strides[k][inner];
    index[inner] = 0;
    for (int d = inner - 1; d >= 0; --d) {
      for (int k = 0; k < ops; ++k) offsets[k] += loop.strides[k][d];
      if (++index[d] < loop.sizes[d]) break;
      for (int k = 0; k < ops; ++k) offsets[k] -= index[d] * loop.strides[k][d];
      index[d] = 0;
    }
  }
}

}  // namespace kiln::jit::kernels

// The iteration space of a fused group: the shape its element-level nodes
// produce and, once a reduction joined, how many leading dims index rows
// (the rest being reduced). Maps the geometry of an operand to one stride
// per iteration dim, and coalesces the loop dims of a finished spec.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "jit/fusion/kernel_spec.h"
#include "trace/geometry.h"

namespace kiln::jit {

/// One stride per iteration dim, in elements (0: broadcast).
struct IterStrides {
  std::int64_t s[trace::kMaxDims] = {};
};

class IterationSpace {
 public:
  IterationSpace() = default;
  explicit IterationSpace(const trace::Geometry& full) : full_(full) {}

  int ndim() const { return full_.ndim; }
  /// -1 until a reduction joined; then the count of leading dims kept.
  int row_dims() const { return row_dims_; }
  bool reduces() const { return row_dims_ >= 0; }
  bool is_full(IntArrayRef shape) const { return shape == full_.shape(); }

  /// The row dims a reduction over `mask` of a full-shaped input implies,
  /// if its dims are the trailing ones (and agree with an earlier one's).
  std::optional<int> rows_for(std::int64_t mask) const;
  void set_row_dims(int k) { row_dims_ = k; }

  /// The strides of `g` over the iteration dims: a full-shaped view as it
  /// is, a row-shaped one (the kept dims, with or without the reduced dims
  /// as 1s) with strides 0 on the reduced dims; nullopt for other shapes.
  std::optional<IterStrides> map(const trace::Geometry& g) const;
  /// True when `g` has the row shape (and is not full-shaped).
  bool is_row_shaped(const trace::Geometry& g) const;
  /// Equal strides on every dim of size > 1: the same elements in the same order.
  bool same_walk(const IterStrides& a, const IterStrides& b) const;

  /// Sets spec.ndim, sizes and row_dims from this space, dropping size-1
  /// dims and merging dims that every operand walks contiguously; kept and
  /// reduced dims never merge, and a row kernel keeps at least one of each.
  void coalesce(KernelSpec& spec) const;

 private:
  trace::Geometry full_{};
  int row_dims_ = -1;
};

}  // namespace kiln::jit

// The iteration space of a fused group: the shape its element-level nodes
// produce and, once a reduction joined, which dims it reduces. The kept
// dims index rows and the reduced ones walk each row: the spec's loops take
// the kept dims first, then the reduced ones, each in order (batch norm's
// sums over dims 0, 2 and 3 of [N, C, H, W] make C rows of N pieces of H x
// W elements). Maps the geometry of an operand to one stride per dim of the
// group's shape, and coalesces the loop dims of a finished spec.
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
  /// -1 until a reduction joined; then the count of dims kept.
  int row_dims() const { return row_dims_; }
  bool reduces() const { return row_dims_ >= 0; }
  bool is_full(IntArrayRef shape) const { return shape == full_.shape(); }

  /// The row dims a reduction over `mask` of a full-shaped input implies:
  /// the dims it keeps, when it reduces the last dim (the row's inner loop
  /// then walks the innermost dim: a sum over rows, a bias gradient, walked
  /// one column at a time would be slower than tier 0's column sums) and
  /// the same dims as an earlier reduction.
  std::optional<int> rows_for(std::int64_t mask) const;
  /// A reduction over `mask` (rows_for accepted it) joined.
  void reduce_over(std::int64_t mask);

  /// The strides of `g` over the group's dims: a full-shaped view as it
  /// is, a row-shaped one (the kept dims, with or without the reduced dims
  /// as 1s) with strides 0 on the reduced dims; nullopt for other shapes.
  std::optional<IterStrides> map(const trace::Geometry& g) const;
  /// True when `g` has the row shape (and is not full-shaped).
  bool is_row_shaped(const trace::Geometry& g) const;
  /// Equal strides on every dim of size > 1: the same elements in the same order.
  bool same_walk(const IterStrides& a, const IterStrides& b) const;

  /// Sets spec.ndim, sizes and row_dims from this space, kept dims first,
  /// dropping size-1 dims and merging dims that every operand walks
  /// contiguously; kept and reduced dims never merge, and a row kernel
  /// keeps at least one of each.
  void coalesce(KernelSpec& spec) const;

 private:
  bool kept(int d) const { return !((reduced_ >> d) & 1); }

  trace::Geometry full_{};
  int row_dims_ = -1;
  std::int64_t reduced_ = 0;  // the reduced dims, a bit each
};

}  // namespace kiln::jit

#include "jit/fusion/iteration_space.h"

namespace kiln::jit {

std::optional<int> IterationSpace::rows_for(std::int64_t mask) const {
  const int n = full_.ndim;
  if (n == 0 || n > 62) return std::nullopt;
  const std::int64_t all = (std::int64_t{1} << n) - 1;
  for (int k = 0; k < n; ++k) {
    if (mask != (all & ~((std::int64_t{1} << k) - 1))) continue;
    if (row_dims_ >= 0 && row_dims_ != k) return std::nullopt;
    return k;
  }
  return std::nullopt;
}

bool IterationSpace::is_row_shaped(const trace::Geometry& g) const {
  if (row_dims_ < 0 || is_full(g.shape())) return false;
  if (g.ndim != row_dims_ && g.ndim != full_.ndim) return false;
  for (int d = 0; d < g.ndim; ++d)
    if (g.sizes[d] != (d < row_dims_ ? full_.sizes[d] : 1)) return false;
  return true;
}

std::optional<IterStrides> IterationSpace::map(const trace::Geometry& g) const {
  IterStrides out;
  if (is_full(g.shape())) {
    for (int d = 0; d < g.ndim; ++d) out.s[d] = g.strides[d];
    return out;
  }
  if (!is_row_shaped(g)) return std::nullopt;
  for (int d = 0; d < row_dims_; ++d) out.s[d] = g.strides[d];
  return out;
}

bool IterationSpace::same_walk(const IterStrides& a, const IterStrides& b) const {
  for (int d = 0; d < full_.ndim; ++d)
    if (full_.sizes[d] > 1 && a.s[d] != b.s[d]) return false;
  return true;
}

void IterationSpace::coalesce(KernelSpec& s) const {
  std::vector<KernelOperand*> mems;
  for (KernelOperand& m : s.inputs) mems.push_back(&m);
  for (KernelOutput& o : s.outputs) mems.push_back(&o.mem);
  int nd = 0;
  std::int64_t sizes[trace::kMaxDims];
  // Dims [from, to) into the next free slots; returns how many it made.
  auto part = [&](int from, int to) {
    const int first = nd;
    for (int d = from; d < to; ++d) {
      const std::int64_t n = full_.sizes[d];
      if (n == 1) continue;
      bool merge = nd > first;
      for (KernelOperand* m : mems) merge = merge && m->strides[nd - 1] == m->strides[d] * n;
      if (merge) {
        sizes[nd - 1] *= n;
        for (KernelOperand* m : mems) m->strides[nd - 1] = m->strides[d];
      } else {
        sizes[nd] = n;
        for (KernelOperand* m : mems) m->strides[nd] = m->strides[d];
        ++nd;
      }
    }
    if (nd == first) {  // every dim of the part has size 1: one dim of size 1
      sizes[nd] = 1;
      for (KernelOperand* m : mems) m->strides[nd] = 0;
      ++nd;
    }
    return nd - first;
  };
  if (row_dims_ > 0) {
    s.row_dims = part(0, row_dims_);
    part(row_dims_, full_.ndim);
  } else {
    s.row_dims = 0;
    part(0, full_.ndim);
  }
  s.ndim = nd;
  for (int d = 0; d < nd; ++d) s.sizes[d] = sizes[d];
  for (KernelOperand* m : mems)
    for (int d = nd; d < trace::kMaxDims; ++d) m->strides[d] = 0;
}

}  // namespace kiln::jit

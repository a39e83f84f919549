#include "jit/fusion/iteration_space.h"

#include <bit>

namespace kiln::jit {

std::optional<int> IterationSpace::rows_for(std::int64_t mask) const {
  const int n = full_.ndim;
  if (n == 0 || n > 62) return std::nullopt;
  const std::int64_t all = (std::int64_t{1} << n) - 1;
  if (mask == 0 || (mask & ~all) != 0 || !((mask >> (n - 1)) & 1)) return std::nullopt;
  if (row_dims_ >= 0 && mask != reduced_) return std::nullopt;
  return n - std::popcount(static_cast<std::uint64_t>(mask));
}

void IterationSpace::reduce_over(std::int64_t mask) {
  row_dims_ = *rows_for(mask);
  reduced_ = mask;
}

bool IterationSpace::is_row_shaped(const trace::Geometry& g) const {
  if (row_dims_ < 0 || is_full(g.shape())) return false;
  if (g.ndim == full_.ndim) {
    for (int d = 0; d < g.ndim; ++d)
      if (g.sizes[d] != (kept(d) ? full_.sizes[d] : 1)) return false;
    return true;
  }
  if (g.ndim != row_dims_) return false;
  for (int d = 0, k = 0; d < full_.ndim; ++d)
    if (kept(d) && g.sizes[k++] != full_.sizes[d]) return false;
  return true;
}

std::optional<IterStrides> IterationSpace::map(const trace::Geometry& g) const {
  IterStrides out;
  if (is_full(g.shape())) {
    for (int d = 0; d < g.ndim; ++d) out.s[d] = g.strides[d];
    return out;
  }
  if (!is_row_shaped(g)) return std::nullopt;
  const bool keepdim = g.ndim == full_.ndim;
  for (int d = 0, k = 0; d < full_.ndim; ++d)
    if (kept(d)) out.s[d] = g.strides[keepdim ? d : k++];
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
  std::vector<IterStrides> by_dim(mems.size());  // the strides before reordering
  for (std::size_t k = 0; k < mems.size(); ++k)
    for (int d = 0; d < full_.ndim; ++d) by_dim[k].s[d] = mems[k]->strides[d];
  int order[trace::kMaxDims];  // kept dims, then reduced ones
  int at = 0;
  for (int d = 0; d < full_.ndim; ++d)
    if (kept(d)) order[at++] = d;
  for (int d = 0; d < full_.ndim; ++d)
    if (!kept(d)) order[at++] = d;
  int nd = 0;
  std::int64_t sizes[trace::kMaxDims];
  // Dims order[from, to) into the next free slots; returns how many it made.
  auto part = [&](int from, int to) {
    const int first = nd;
    for (int p = from; p < to; ++p) {
      const int d = order[p];
      const std::int64_t n = full_.sizes[d];
      if (n == 1) continue;
      bool merge = nd > first;
      for (std::size_t k = 0; k < mems.size(); ++k) merge = merge && mems[k]->strides[nd - 1] == by_dim[k].s[d] * n;
      if (merge) {
        sizes[nd - 1] *= n;
        for (std::size_t k = 0; k < mems.size(); ++k) mems[k]->strides[nd - 1] = by_dim[k].s[d];
      } else {
        sizes[nd] = n;
        for (std::size_t k = 0; k < mems.size(); ++k) mems[k]->strides[nd] = by_dim[k].s[d];
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

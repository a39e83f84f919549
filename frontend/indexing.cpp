// Tensor::index / index_put_ / operator[]: LibTorch's indexing, lowered to
// views (select, slice, unsqueeze) for the basic indices and to one
// index_select over the indexed dims, flattened, for tensor indices. Both are
// differentiable ops already, so indexing needs no gradient of its own.
#include <kiln/frontend/indexing.h>

#include <algorithm>
#include <cstring>

#include <kiln/autograd.h>
#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

namespace kiln {
namespace indexing {

Slice::Slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop, std::optional<std::int64_t> step)
    : start_(start), stop_(stop), step_(step.value_or(1)) {
  if (step_ <= 0) throw ValueError(detail::cat("[index] slice step must be greater than zero, got ", step_));
}

TensorIndex::TensorIndex(const char* ellipsis) : kind_(Kind::Ellipsis) {
  if (!ellipsis || std::strcmp(ellipsis, "...") != 0)
    throw ValueError(detail::cat("[index] the only string index is \"...\", got \"", ellipsis ? ellipsis : "", "\""));
}

}  // namespace indexing

namespace {

using indexing::TensorIndex;
using Kind = TensorIndex::Kind;

std::string describe(const std::vector<TensorIndex>& indices) {
  std::string s = "{";
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const TensorIndex& ix = indices[i];
    s += i ? ", " : "";
    switch (ix.kind()) {
      case Kind::None: s += "None"; break;
      case Kind::Ellipsis: s += "..."; break;
      case Kind::Integer: s += std::to_string(ix.integer()); break;
      case Kind::Boolean: s += ix.boolean() ? "true" : "false"; break;
      case Kind::Slice: s += "Slice"; break;
      case Kind::Tensor: s += detail::cat(to_string(ix.tensor().dtype()), " tensor ", ix.tensor().sizes()); break;
    }
  }
  return s + "}";
}

// How many dims of the indexed tensor an entry consumes.
std::int64_t dims_consumed(const TensorIndex& ix) {
  switch (ix.kind()) {
    case Kind::Integer:
    case Kind::Slice: return 1;
    case Kind::Tensor: return ix.tensor().dtype() == ScalarType::Bool ? ix.tensor().dim() : 1;
    default: return 0;
  }
}

// A bool mask over `mask.dim()` dims becomes that many long index tensors
// (the coordinates of its true elements), as LibTorch's nonzero().unbind(1).
std::vector<Tensor> mask_coordinates(const Tensor& mask) {
  const std::vector<bool> values = mask.to_vector<bool>();
  const std::int64_t nd = mask.dim();
  std::vector<std::vector<std::int64_t>> coords(static_cast<std::size_t>(nd));
  std::vector<std::int64_t> at(static_cast<std::size_t>(nd), 0);
  for (bool v : values) {
    if (v)
      for (std::int64_t d = 0; d < nd; ++d) coords[d].push_back(at[d]);
    for (std::int64_t d = nd - 1; d >= 0; --d) {  // row-major odometer
      if (++at[d] < mask.size(d)) break;
      at[d] = 0;
    }
  }
  std::vector<Tensor> out;
  for (auto& c : coords) out.push_back(tensor(c, kInt64).view({static_cast<std::int64_t>(c.size())}));
  return out;
}

struct Lowered {
  Tensor view;                                  // after the basic indices
  std::vector<std::pair<std::int64_t, Tensor>> advanced;  // (dim of `view`, long index)
};

// Applies ints, slices, None and Ellipsis as views and collects the tensor
// indices with the dim of the view each one indexes.
Lowered lower(const Tensor& self, const std::vector<TensorIndex>& indices) {
  std::int64_t consumed = 0, ellipses = 0;
  for (const TensorIndex& ix : indices) {
    consumed += dims_consumed(ix);
    ellipses += ix.kind() == Kind::Ellipsis;
  }
  if (ellipses > 1)
    throw IndexError(detail::cat("[index] an index can only have a single ellipsis, got ", describe(indices)));
  if (consumed > self.dim())
    throw IndexError(detail::cat("[index] too many indices for tensor of dimension ", self.dim(), " (shape ",
                                 self.sizes(), "): ", describe(indices)));
  Lowered out{self, {}};
  std::int64_t dim = 0;  // the next dim of out.view to index
  for (const TensorIndex& ix : indices) {
    switch (ix.kind()) {
      case Kind::None: out.view = out.view.unsqueeze(dim++); break;
      case Kind::Ellipsis: dim += self.dim() - consumed; break;
      case Kind::Boolean:  // x[true] adds a dim of 1, x[false] one of 0
        out.view = out.view.unsqueeze(dim);
        if (!ix.boolean()) out.view = out.view.slice(dim, 0, 0);
        ++dim;
        break;
      case Kind::Integer: out.view = out.view.select(dim, ix.integer()); break;
      case Kind::Slice: {
        const indexing::Slice& s = ix.slice();
        out.view = out.view.slice(dim++, s.start(), s.stop(), s.step());
        break;
      }
      case Kind::Tensor: {
        const Tensor& t = ix.tensor();
        if (t.dtype() == ScalarType::Bool) {
          for (std::int64_t d = 0; d < t.dim(); ++d)
            if (t.size(d) != out.view.size(dim + d))
              throw IndexError(detail::cat("[index] the mask of shape ", t.sizes(), " does not match the indexed ",
                                           "tensor's shape ", self.sizes(), " at its dim ", d));
          for (Tensor& c : mask_coordinates(t)) out.advanced.emplace_back(dim++, std::move(c));
        } else if (is_floating_point(t.dtype())) {
          throw IndexError(detail::cat("[index] tensors used as indices must be long, int or bool, got ",
                                       to_string(t.dtype()), " ", t.sizes()));
        } else {
          out.advanced.emplace_back(dim++, t.to(kInt64));
        }
        break;
      }
    }
  }
  return out;
}

// x[i0, i1, ...] over the dims d0 < d1 < ... of `x`: the indices broadcast to
// one shape B; the result has B in place of the indexed dims when they are
// adjacent, in front otherwise (NumPy's and LibTorch's rule). Reading and
// writing share this layout: `x` with the indexed dims moved first and
// flattened into one dim of `flat` rows, and each index's row in it.
struct AdvancedLayout {
  std::vector<std::int64_t> perm;        // x.permute(perm): indexed dims first, then the rest
  std::vector<std::int64_t> flat_shape;  // {flat, sizes of the rest}
  Tensor rows;                           // [n] long: the flat row of each index, row-major over B
  std::vector<std::int64_t> bshape;      // B
  std::vector<std::int64_t> result_perm; // [B..., rest...] -> the result's dim order (empty: none)
  std::vector<std::int64_t> result_shape;

  AdvancedLayout(const Tensor& x, const std::vector<std::pair<std::int64_t, Tensor>>& advanced) {
    std::vector<std::int64_t> order, rest;
    for (const auto& a : advanced) order.push_back(a.first);
    for (std::int64_t d = 0; d < x.dim(); ++d)
      if (std::find(order.begin(), order.end(), d) == order.end()) rest.push_back(d);
    perm = order;
    perm.insert(perm.end(), rest.begin(), rest.end());

    // The row-major position within the indexed dims; the indices broadcast
    // to its shape. An index out of range would land on another valid
    // position, so the range is checked here (reading the indices: a
    // materialization point, as LibTorch's check is a device sync).
    std::string shapes;
    for (const auto& a : advanced) shapes += detail::cat(shapes.empty() ? "" : ", ", a.second.sizes());
    Tensor linear = scalar_tensor(0, kInt64);
    std::int64_t flat = 1;
    for (std::size_t k = 0; k < order.size(); ++k) {
      const std::int64_t size = x.size(order[k]);
      const Tensor& raw = advanced[k].second;
      const Tensor i = where(raw < 0, raw + size, raw);  // negative indices count from the end
      if ((i < 0).logical_or(i >= size).any().item<bool>())
        throw IndexError(detail::cat("[index] an index is out of range for dim ", order[k], " of size ", size,
                                     " (tensor shape ", x.sizes(), ")"));
      try {
        linear = linear * size + i;
      } catch (const ShapeError&) {
        throw IndexError(detail::cat("[index] shape mismatch: indexing tensors could not be broadcast together "
                                     "with shapes ", shapes));
      }
      flat *= size;
    }
    bshape = linear.sizes().vec();
    rows = linear.flatten();
    flat_shape = {flat};
    for (std::int64_t d : rest) flat_shape.push_back(x.size(d));
    result_shape = bshape;
    for (std::int64_t d : rest) result_shape.push_back(x.size(d));

    // Adjacent indexed dims: B goes where the first of them was.
    const bool adjacent = order.back() - order.front() + 1 == static_cast<std::int64_t>(order.size());
    if (!adjacent || order.front() == 0) return;
    const auto nb = static_cast<std::int64_t>(bshape.size());
    for (std::int64_t j = 0; j < order.front(); ++j) result_perm.push_back(nb + j);
    for (std::int64_t j = 0; j < nb; ++j) result_perm.push_back(j);
    for (std::int64_t j = nb + order.front(); j < static_cast<std::int64_t>(result_shape.size()); ++j)
      result_perm.push_back(j);
    std::vector<std::int64_t> permuted;
    for (std::int64_t j : result_perm) permuted.push_back(result_shape[static_cast<std::size_t>(j)]);
    result_shape = permuted;
  }

  /// The inverse of a permutation.
  static std::vector<std::int64_t> inverse(const std::vector<std::int64_t>& p) {
    std::vector<std::int64_t> inv(p.size());
    for (std::size_t j = 0; j < p.size(); ++j) inv[static_cast<std::size_t>(p[j])] = static_cast<std::int64_t>(j);
    return inv;
  }
};

Tensor gather_advanced(const Tensor& x, const std::vector<std::pair<std::int64_t, Tensor>>& advanced) {
  AdvancedLayout l(x, advanced);
  std::vector<std::int64_t> unpermuted = l.bshape;
  unpermuted.insert(unpermuted.end(), l.flat_shape.begin() + 1, l.flat_shape.end());
  Tensor out = x.permute(l.perm).reshape(l.flat_shape).index_select(0, l.rows).reshape(unpermuted);
  return l.result_perm.empty() ? out : out.permute(l.result_perm);
}

// x[i0, i1, ...] = value, `value` broadcasting to the shape x[i0, i1, ...]
// has. Where indices repeat a position, the last of them writes it (LibTorch
// leaves which one unspecified): each row's value is kept only if no later
// index names the same row, found by a stable argsort of the rows, and the
// kept values are scatter-added into rows that are zero elsewhere.
Tensor put_advanced(const Tensor& x, const std::vector<std::pair<std::int64_t, Tensor>>& advanced,
                    const Tensor& value) {
  AdvancedLayout l(x, advanced);
  Tensor v;
  try {
    v = value.to(x.dtype()).expand(l.result_shape);
  } catch (const ShapeError&) {
    throw ShapeError(detail::cat("[index_put_] shape mismatch: value tensor of shape ", value.sizes(),
                                 " cannot be broadcast to indexing result of shape ", l.result_shape));
  }
  if (!l.result_perm.empty()) v = v.permute(AdvancedLayout::inverse(l.result_perm));
  const std::int64_t n = l.rows.numel();
  std::vector<std::int64_t> row_values = {n};
  row_values.insert(row_values.end(), l.flat_shape.begin() + 1, l.flat_shape.end());
  v = v.reshape(row_values);

  const Tensor order = l.rows.argsort(0);
  const Tensor sorted = l.rows.index_select(0, order);
  Tensor last_sorted = ones({n}, kBool);
  if (n > 1) last_sorted = cat({sorted.slice(0, 1, n) != sorted.slice(0, 0, n - 1), ones({1}, kBool)});
  const Tensor last = zeros({n}, kInt64).scatter_add(0, order, last_sorted.to(kInt64)) > 0;

  std::vector<std::int64_t> per_row(l.flat_shape.size(), 1);  // [rows, 1, ...]: a flag per row, broadcast
  per_row[0] = n;
  const Tensor kept = where(last.view(per_row), v, zeros({}, x.dtype()));
  const Tensor index = l.rows.view(per_row).expand(row_values);
  const Tensor flat = x.permute(l.perm).reshape(l.flat_shape);
  const Tensor written = zeros({l.flat_shape[0]}, kInt64).scatter_add(0, l.rows, ones({n}, kInt64)) > 0;
  per_row[0] = l.flat_shape[0];
  const Tensor updated = where(written.view(per_row), zeros_like(flat).scatter_add(0, index, kept), flat);
  std::vector<std::int64_t> moved_shape;
  for (std::int64_t d : l.perm) moved_shape.push_back(x.size(d));
  return updated.reshape(moved_shape).permute(AdvancedLayout::inverse(l.perm));
}

}  // namespace

Tensor Tensor::index(std::initializer_list<indexing::TensorIndex> indices) const {
  return index(std::vector<indexing::TensorIndex>(indices));
}

Tensor Tensor::index(const std::vector<indexing::TensorIndex>& indices) const {
  if (!defined()) throw ValueError("[index] called on an undefined tensor");
  Lowered l = lower(*this, indices);
  return l.advanced.empty() ? l.view : gather_advanced(l.view, l.advanced);
}

Tensor Tensor::operator[](std::int64_t i) const { return select(0, i); }
Tensor Tensor::operator[](const Tensor& i) const { return index({i}); }

Tensor& Tensor::index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& value) {
  Lowered l = lower(*this, indices);
  if (l.advanced.empty()) {
    l.view.copy_(value);
    return *this;
  }
  // One bool mask and one value: a select-and-merge, without reading the mask.
  const bool single_mask = indices.size() == 1 && indices[0].kind() == Kind::Tensor &&
                           indices[0].tensor().dtype() == ScalarType::Bool;
  if (single_mask && value.numel() == 1) {
    Tensor m = indices[0].tensor();
    while (m.dim() < dim()) m = m.unsqueeze(-1);
    copy_(where(m, value.reshape({}).to(dtype()), *this));
    return *this;
  }
  l.view.copy_(put_advanced(l.view, l.advanced, value));
  return *this;
}

Tensor& Tensor::index_put_(const std::vector<indexing::TensorIndex>& indices, Scalar value) {
  return index_put_(indices, scalar_tensor(value, dtype()));
}

Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value) {
  return index_put_(std::vector<indexing::TensorIndex>(indices), value);
}
Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices, Scalar value) {
  return index_put_(std::vector<indexing::TensorIndex>(indices), value);
}

}  // namespace kiln

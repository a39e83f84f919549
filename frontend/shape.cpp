// Shape ops: views (no copy, shared storage) and the copying ones
// (cat, stack, index_select, gather, clone).
#include <algorithm>
#include <limits>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

#include "frontend/autograd/copy_slices.h"
#include "frontend/autograd/formulas.h"
#include "frontend/autograd/function_node.h"
#include "frontend/autograd/op_node.h"
#include "frontend/handle.h"
#include "trace/views.h"

namespace kiln {

using frontend::unwrap;
using frontend::wrap;

namespace {

using autograd::variable_list;

// Whether a view of `x` must be linked into autograd (x is tracked).
bool tracked(const Tensor& x) { return x.impl()->autograd != nullptr; }

// The backward of views that only rearrange elements.
autograd::FunctionNode::Backward reshape_back(const Tensor& x) {
  return [shape = x.sizes().vec()](const Tensor& g, const variable_list&) { return variable_list{g.reshape(shape)}; };
}

// The backward of slice / narrow / select: the gradient placed into zeros
// of the input's shape.
autograd::FunctionNode::Backward embed_back(const Tensor& x, std::int64_t dim, std::int64_t start, std::int64_t step,
                                            bool select) {
  return [shape = x.sizes().vec(), dim, start, step, select](const Tensor& g, const variable_list&) {
    return variable_list{autograd::embed_region(g, shape, dim, start, step, select)};
  };
}

// Python's clamped slice start, as trace::slice computes it.
std::int64_t slice_start(std::int64_t start, std::int64_t n) {
  if (start < 0) start += n;
  return std::clamp<std::int64_t>(start, 0, n);
}

}  // namespace

Tensor Tensor::view(IntArrayRef shape) const {
  Tensor out = wrap(trace::view(unwrap(*this, "view"), shape));
  if (tracked(*this)) autograd::record_view("ViewBackward0", *this, out, reshape_back(*this));
  return out;
}
Tensor Tensor::reshape(IntArrayRef shape) const {
  Tensor out = wrap(trace::reshape(unwrap(*this, "reshape"), shape));
  if (tracked(*this)) autograd::record_view("ViewBackward0", *this, out, reshape_back(*this));
  return out;
}
Tensor Tensor::flatten(std::int64_t s, std::int64_t e) const {
  Tensor out = wrap(trace::flatten(unwrap(*this, "flatten"), s, e));
  if (tracked(*this)) autograd::record_view("ViewBackward0", *this, out, reshape_back(*this));
  return out;
}
Tensor Tensor::squeeze() const {
  Tensor out = wrap(trace::squeeze(unwrap(*this, "squeeze")));
  if (tracked(*this)) autograd::record_view("SqueezeBackward0", *this, out, reshape_back(*this));
  return out;
}
Tensor Tensor::squeeze(std::int64_t d) const {
  Tensor out = wrap(trace::squeeze(unwrap(*this, "squeeze"), d));
  if (tracked(*this)) autograd::record_view("SqueezeBackward1", *this, out, reshape_back(*this));
  return out;
}
Tensor Tensor::unsqueeze(std::int64_t d) const {
  Tensor out = wrap(trace::unsqueeze(unwrap(*this, "unsqueeze"), d));
  if (tracked(*this)) autograd::record_view("UnsqueezeBackward0", *this, out, reshape_back(*this));
  return out;
}
Tensor Tensor::permute(IntArrayRef dims) const {
  Tensor out = wrap(trace::permute(unwrap(*this, "permute"), dims));
  if (tracked(*this)) {
    std::vector<std::int64_t> inverse(dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i)
      inverse[trace::wrap_dim(dims[i], static_cast<int>(dim()), "permute")] = static_cast<std::int64_t>(i);
    autograd::record_view("PermuteBackward0", *this, out, [inverse](const Tensor& g, const variable_list&) {
      return variable_list{g.permute(inverse)};
    });
  }
  return out;
}
Tensor Tensor::transpose(std::int64_t a, std::int64_t b) const {
  Tensor out = wrap(trace::transpose(unwrap(*this, "transpose"), a, b));
  if (tracked(*this))
    autograd::record_view("TransposeBackward0", *this, out, [a, b](const Tensor& g, const variable_list&) {
      return variable_list{g.transpose(a, b)};
    });
  return out;
}
Tensor Tensor::t() const {
  Tensor out = wrap(trace::t(unwrap(*this, "t")));
  if (tracked(*this))
    autograd::record_view("TBackward0", *this, out, [](const Tensor& g, const variable_list&) {
      return variable_list{g.t()};
    });
  return out;
}
Tensor Tensor::expand(IntArrayRef sizes) const {
  Tensor out = wrap(trace::expand(unwrap(*this, "expand"), sizes));
  if (tracked(*this))
    autograd::record_view("ExpandBackward0", *this, out,
                          [shape = this->sizes().vec()](const Tensor& g, const variable_list&) {
                            return variable_list{autograd::sum_to(g, shape)};
                          });
  return out;
}
Tensor Tensor::expand_as(const Tensor& o) const { return expand(o.sizes()); }
Tensor Tensor::slice(std::int64_t dim, std::optional<std::int64_t> start, std::optional<std::int64_t> end,
                     std::int64_t step) const {
  const auto& x = unwrap(*this, "slice");
  Tensor out = wrap(trace::slice(x, dim, start.value_or(0), end.value_or(std::numeric_limits<std::int64_t>::max()), step));
  if (tracked(*this)) {
    int d = trace::wrap_dim(dim, x.geo, "slice");
    autograd::record_view("SliceBackward0", *this, out,
                          embed_back(*this, d, slice_start(start.value_or(0), x.geo.sizes[d]), step, false));
  }
  return out;
}
Tensor Tensor::narrow(std::int64_t d, std::int64_t s, std::int64_t n) const {
  const auto& x = unwrap(*this, "narrow");
  Tensor out = wrap(trace::narrow(x, d, s, n));
  if (tracked(*this)) {
    int w = trace::wrap_dim(d, x.geo, "narrow");
    autograd::record_view("NarrowBackward0", *this, out, embed_back(*this, w, s < 0 ? s + x.geo.sizes[w] : s, 1, false));
  }
  return out;
}
Tensor Tensor::select(std::int64_t d, std::int64_t i) const {
  const auto& x = unwrap(*this, "select");
  Tensor out = wrap(trace::select(x, d, i));
  if (tracked(*this)) {
    int w = trace::wrap_dim(d, x.geo, "select");
    autograd::record_view("SelectBackward0", *this, out, embed_back(*this, w, i < 0 ? i + x.geo.sizes[w] : i, 1, true));
  }
  return out;
}

namespace {
Tensor index_op(trace::OpId op, const Tensor& x, std::int64_t d, const Tensor& index, const char* name,
                trace::TensorRef (*record)(const trace::TensorImpl&, std::int64_t, const trace::TensorImpl&)) {
  const auto &src = unwrap(x, name), &idx = unwrap(index, name);
  Tensor out = wrap(record(src, d, idx));
  if (autograd::needs_history({src})) {
    trace::Attrs attrs;
    attrs.i[0] = src.geo.ndim == 0 ? 0 : trace::wrap_dim(d, src.geo, name);
    autograd::record_op(op, {src, idx}, attrs, out);
  }
  return out;
}
}  // namespace

Tensor Tensor::index_select(std::int64_t d, const Tensor& index) const {
  return index_op(trace::OpId::IndexSelect, *this, d, index, "index_select", trace::index_select);
}
Tensor Tensor::gather(std::int64_t d, const Tensor& index) const {
  return index_op(trace::OpId::Gather, *this, d, index, "gather", trace::gather);
}
Tensor Tensor::scatter_add(std::int64_t d, const Tensor& index, const Tensor& src) const {
  const auto &self = unwrap(*this, "scatter_add"), &idx = unwrap(index, "scatter_add"),
             &values = unwrap(src, "scatter_add");
  Tensor out = wrap(trace::scatter_add(self, d, idx, values));
  if (autograd::needs_history({self, values})) {
    trace::Attrs attrs;
    attrs.i[0] = self.geo.ndim == 0 ? 0 : trace::wrap_dim(d, self.geo, "scatter_add");
    autograd::record_op(trace::OpId::ScatterAdd, {self, idx, values}, attrs, out);
  }
  return out;
}
Tensor& Tensor::scatter_add_(std::int64_t d, const Tensor& index, const Tensor& src) {
  return copy_(scatter_add(d, index, src));
}
Tensor scatter_add(const Tensor& self, std::int64_t d, const Tensor& index, const Tensor& src) {
  return self.scatter_add(d, index, src);
}
Tensor Tensor::clone() const { return frontend::convert(*this, unwrap(*this, "clone").dtype); }
Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

std::vector<Tensor> Tensor::split(std::int64_t size, std::int64_t dim) const {
  const auto& x = unwrap(*this, "split");
  if (size < 1) throw ValueError(detail::cat("[split] split_size must be positive, got ", size));
  if (x.geo.ndim == 0) throw IndexError("[split] cannot split a zero-dim tensor");
  int d = trace::wrap_dim(dim, x.geo, "split");
  std::int64_t n = x.geo.sizes[d];
  std::vector<Tensor> parts;
  for (std::int64_t s = 0; s < n; s += size) parts.push_back(narrow(d, s, std::min(size, n - s)));
  if (parts.empty()) parts.push_back(*this);  // a zero-size dim still gives one (empty) part
  return parts;
}

std::vector<Tensor> Tensor::chunk(std::int64_t chunks, std::int64_t dim) const {
  const auto& x = unwrap(*this, "chunk");
  if (chunks < 1) throw ValueError(detail::cat("[chunk] chunks must be positive, got ", chunks));
  if (x.geo.ndim == 0) throw IndexError("[chunk] cannot chunk a zero-dim tensor");
  std::int64_t n = x.geo.sizes[trace::wrap_dim(dim, x.geo, "chunk")];
  return split(std::max<std::int64_t>((n + chunks - 1) / chunks, 1), dim);
}

Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim) {
  if (tensors.empty()) throw ValueError("[cat] expects a non-empty list of tensors");
  const auto& first = unwrap(tensors[0], "cat");
  if (first.geo.ndim == 0) throw ShapeError("[cat] zero-dim tensors cannot be concatenated");
  int d = trace::wrap_dim(dim, first.geo, "cat");
  std::vector<std::int64_t> shape = first.geo.shape().vec();
  ScalarType dtype = first.dtype;
  shape[d] = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = unwrap(tensors[i], "cat");
    bool same = t.geo.ndim == first.geo.ndim;
    for (int k = 0; same && k < t.geo.ndim; ++k) same = k == d || t.geo.sizes[k] == first.geo.sizes[k];
    if (!same)
      throw ShapeError(detail::cat("[cat] tensor ", i, " has shape ", t.geo.shape(), ", which does not match ",
                                   first.geo.shape(), " outside dim ", d));
    shape[d] += t.geo.sizes[d];
    dtype = promote_types(dtype, t.dtype);
  }
  // One destination, each input copied into its slice: no dedicated kernel.
  // The gradient is one node (CatBackward0) handing each input its slice.
  bool track = autograd::any_requires_grad(tensors);
  Tensor out;
  {
    autograd::AutoGradMode mode(!track && GradMode::is_enabled());
    out = empty(shape, dtype);
    std::int64_t offset = 0;
    for (const Tensor& t : tensors) {
      std::int64_t n = t.size(d);
      out.narrow(d, offset, n).copy_(t);
      offset += n;
    }
  }
  if (track) {
    std::vector<std::int64_t> lengths;
    std::vector<ScalarType> dtypes;
    for (const Tensor& t : tensors) {
      lengths.push_back(t.size(d));
      dtypes.push_back(t.dtype());
    }
    autograd::record_function("CatBackward0", tensors, out,
                              [d, lengths, dtypes](const Tensor& g, const variable_list&) {
                                variable_list grads;
                                std::int64_t offset = 0;
                                for (std::size_t i = 0; i < lengths.size(); ++i) {
                                  Tensor part = g.narrow(d, offset, lengths[i]);
                                  grads.push_back(part.dtype() == dtypes[i] ? part : part.to(dtypes[i]));
                                  offset += lengths[i];
                                }
                                return grads;
                              });
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim) {
  if (tensors.empty()) throw ValueError("[stack] expects a non-empty list of tensors");
  int d = trace::wrap_dim(dim, static_cast<int>(tensors[0].dim()) + 1, "stack");
  std::vector<Tensor> parts;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (!(tensors[i].sizes() == tensors[0].sizes()))
      throw ShapeError(detail::cat("[stack] expects tensors of equal shape, got ", tensors[0].sizes(), " and ",
                                   tensors[i].sizes(), " at entry ", i));
    parts.push_back(tensors[i].unsqueeze(d));
  }
  return cat(parts, d);
}

std::vector<Tensor> split(const Tensor& x, std::int64_t size, std::int64_t dim) { return x.split(size, dim); }
std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, std::int64_t dim) { return x.chunk(chunks, dim); }
Tensor index_select(const Tensor& x, std::int64_t dim, const Tensor& index) { return x.index_select(dim, index); }
Tensor gather(const Tensor& x, std::int64_t dim, const Tensor& index) { return x.gather(dim, index); }
Tensor reshape(const Tensor& x, IntArrayRef shape) { return x.reshape(shape); }
Tensor flatten(const Tensor& x, std::int64_t s, std::int64_t e) { return x.flatten(s, e); }
Tensor squeeze(const Tensor& x) { return x.squeeze(); }
Tensor squeeze(const Tensor& x, std::int64_t dim) { return x.squeeze(dim); }
Tensor unsqueeze(const Tensor& x, std::int64_t dim) { return x.unsqueeze(dim); }
Tensor permute(const Tensor& x, IntArrayRef dims) { return x.permute(dims); }
Tensor transpose(const Tensor& x, std::int64_t a, std::int64_t b) { return x.transpose(a, b); }
Tensor t(const Tensor& x) { return x.t(); }
Tensor narrow(const Tensor& x, std::int64_t d, std::int64_t s, std::int64_t n) { return x.narrow(d, s, n); }
Tensor select(const Tensor& x, std::int64_t d, std::int64_t i) { return x.select(d, i); }
Tensor clone(const Tensor& x) { return x.clone(); }

}  // namespace kiln

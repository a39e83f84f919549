// Shape ops: views (no copy, shared storage) and the copying ones
// (cat, stack, index_select, gather, clone).
#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

#include "frontend/handle.h"
#include "trace/views.h"

namespace kiln {

using frontend::unwrap;
using frontend::wrap;

Tensor Tensor::view(IntArrayRef shape) const { return wrap(trace::view(unwrap(*this, "view"), shape)); }
Tensor Tensor::reshape(IntArrayRef shape) const { return wrap(trace::reshape(unwrap(*this, "reshape"), shape)); }
Tensor Tensor::flatten(std::int64_t s, std::int64_t e) const { return wrap(trace::flatten(unwrap(*this, "flatten"), s, e)); }
Tensor Tensor::squeeze() const { return wrap(trace::squeeze(unwrap(*this, "squeeze"))); }
Tensor Tensor::squeeze(std::int64_t d) const { return wrap(trace::squeeze(unwrap(*this, "squeeze"), d)); }
Tensor Tensor::unsqueeze(std::int64_t d) const { return wrap(trace::unsqueeze(unwrap(*this, "unsqueeze"), d)); }
Tensor Tensor::permute(IntArrayRef dims) const { return wrap(trace::permute(unwrap(*this, "permute"), dims)); }
Tensor Tensor::transpose(std::int64_t a, std::int64_t b) const {
  return wrap(trace::transpose(unwrap(*this, "transpose"), a, b));
}
Tensor Tensor::t() const { return wrap(trace::t(unwrap(*this, "t"))); }
Tensor Tensor::expand(IntArrayRef sizes) const { return wrap(trace::expand(unwrap(*this, "expand"), sizes)); }
Tensor Tensor::expand_as(const Tensor& o) const { return expand(o.sizes()); }
Tensor Tensor::slice(std::int64_t dim, std::optional<std::int64_t> start, std::optional<std::int64_t> end,
                     std::int64_t step) const {
  return wrap(trace::slice(unwrap(*this, "slice"), dim, start.value_or(0),
                           end.value_or(std::numeric_limits<std::int64_t>::max()), step));
}
Tensor Tensor::narrow(std::int64_t d, std::int64_t s, std::int64_t n) const {
  return wrap(trace::narrow(unwrap(*this, "narrow"), d, s, n));
}
Tensor Tensor::select(std::int64_t d, std::int64_t i) const { return wrap(trace::select(unwrap(*this, "select"), d, i)); }
Tensor Tensor::index_select(std::int64_t d, const Tensor& index) const {
  return wrap(trace::index_select(unwrap(*this, "index_select"), d, unwrap(index, "index_select")));
}
Tensor Tensor::gather(std::int64_t d, const Tensor& index) const {
  return wrap(trace::gather(unwrap(*this, "gather"), d, unwrap(index, "gather")));
}
Tensor Tensor::clone() const {
  const auto& x = unwrap(*this, "clone");
  return wrap(trace::convert(x, x.dtype));
}
Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

std::vector<Tensor> Tensor::split(std::int64_t size, std::int64_t dim) const {
  const auto& x = unwrap(*this, "split");
  if (size < 1) throw ValueError(detail::cat("[split] split_size must be positive, got ", size));
  if (x.geo.ndim == 0) throw IndexError("[split] cannot split a zero-dim tensor");
  int d = trace::wrap_dim(dim, x.geo.ndim, "split");
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
  std::int64_t n = x.geo.sizes[trace::wrap_dim(dim, x.geo.ndim, "chunk")];
  return split(std::max<std::int64_t>((n + chunks - 1) / chunks, 1), dim);
}

Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim) {
  if (tensors.empty()) throw ValueError("[cat] expects a non-empty list of tensors");
  const auto& first = unwrap(tensors[0], "cat");
  if (first.geo.ndim == 0) throw ShapeError("[cat] zero-dim tensors cannot be concatenated");
  int d = trace::wrap_dim(dim, first.geo.ndim, "cat");
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
  Tensor out = empty(shape, dtype);
  std::int64_t offset = 0;
  for (const Tensor& t : tensors) {
    std::int64_t n = t.size(d);
    out.narrow(d, offset, n).copy_(t);
    offset += n;
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

// index_select, gather and scatter_add: index tensors checked for dtype and shape here,
// and for bounds when their values are already known (as LibTorch checks at
// the call); a pending index is checked by the kernel when it runs.
#include <kiln/error.h>

#include "trace/record.h"
#include "trace/record_util.h"
#include "trace/strided_read.h"
#include "trace/views.h"

namespace kiln::trace {
namespace {

TensorRef index_node(OpId op, const TensorImpl& src, int dim, const TensorImpl& index, IntArrayRef out_shape) {
  TensorRef converted;
  const TensorImpl* idx = &index;
  if (index.dtype != ScalarType::Int64) {
    converted = convert(index, ScalarType::Int64);
    idx = converted.get();
  }
  Geometry index_geo = idx->geo;
  if (index_geo.ndim == 0 && op == OpId::IndexSelect) {  // a single index reads as a list of one
    index_geo.ndim = 1;
    index_geo.sizes[0] = 1;
    index_geo.strides[0] = 1;
  }
  TensorRef out = fresh_output(out_shape, src.dtype, name(op));
  Node node;
  node.op = op;
  node.dtype = src.dtype;
  node.arity = 2;
  node.attrs.i[0] = dim;
  node.in[0] = tensor_operand(src, src.geo);
  node.in[1] = tensor_operand(*idx, index_geo);
  node.out = tensor_operand(*out, out->geo);
  const TensorImpl* ins[kMaxArity] = {&src, idx};
  push(node, ins, out->storage, true);
  return out;
}

void require_integral_index(const TensorImpl& index, const char* op, bool int32_ok) {
  if (index.dtype == ScalarType::Int64 || (int32_ok && index.dtype == ScalarType::Int32)) return;
  throw DtypeError(detail::cat("[", op, "] index must be ", int32_ok ? "an Int or Long" : "a Long",
                               " tensor, got ", index.dtype));
}

// The kernel's message, from the call.
void check_settled_bounds(const TensorImpl& index, std::int64_t dim, std::int64_t bound, const char* op) {
  if (!is_settled(index)) return;
  for (std::int64_t v : read_elements<std::int64_t>(index))
    if (v < 0 || v >= bound)
      throw IndexError(detail::cat("[", op, "] index ", v, " is out of bounds for dimension ", dim, " with size ",
                                   bound));
}

}  // namespace

TensorRef index_select(const TensorImpl& src, std::int64_t dim, const TensorImpl& index) {
  require_integral_index(index, "index_select", true);
  if (index.geo.ndim > 1)
    throw ShapeError(detail::cat("[index_select] index must be 0-D or 1-D, got shape ", index.geo.shape()));
  if (src.geo.ndim == 0) {  // LibTorch: a zero-dim source reads as one element; the result is zero-dim
    wrap_dim(dim, 0, "index_select");
    if (index.geo.numel() != 1)
      throw IndexError(detail::cat("[index_select] a zero-dim source takes one index, got shape ", index.geo.shape()));
    return view(*index_select(*unsqueeze(src, 0), 0, *reshape(index, {1})), {});
  }
  int d = wrap_dim(dim, src.geo, "index_select");
  check_settled_bounds(index, d, src.geo.sizes[d], "index_select");
  std::int64_t count = index.geo.ndim == 0 ? 1 : index.geo.sizes[0];
  std::int64_t shape[kMaxDims];
  for (int i = 0; i < src.geo.ndim; ++i) shape[i] = i == d ? count : src.geo.sizes[i];
  return index_node(OpId::IndexSelect, src, d, index, {shape, static_cast<std::size_t>(src.geo.ndim)});
}

TensorRef gather(const TensorImpl& src, std::int64_t dim, const TensorImpl& index) {
  require_integral_index(index, "gather", false);
  int d = wrap_dim(dim, src.geo, "gather");
  if (src.geo.ndim == 0 && index.geo.ndim == 0)  // one element from one element
    return view(*gather(*unsqueeze(src, 0), 0, *unsqueeze(index, 0)), {});
  if (index.geo.ndim != src.geo.ndim)
    throw ShapeError(detail::cat("[gather] index ", index.geo.shape(), " must have as many dims as the input ",
                                 src.geo.shape()));
  for (int i = 0; i < src.geo.ndim; ++i)
    if (i != d && index.geo.sizes[i] > src.geo.sizes[i])
      throw ShapeError(detail::cat("[gather] index ", index.geo.shape(), " is larger than the input ",
                                   src.geo.shape(), " in dim ", i));
  check_settled_bounds(index, d, src.geo.sizes[d], "gather");
  return index_node(OpId::Gather, src, d, index, index.geo.shape());
}

TensorRef scatter_add(const TensorImpl& self, std::int64_t dim, const TensorImpl& index, const TensorImpl& src) {
  require_integral_index(index, "scatter_add", false);
  if (src.dtype != self.dtype)
    throw DtypeError(detail::cat("[scatter_add] expected self.dtype to be equal to src.dtype, got ", self.dtype,
                                 " and ", src.dtype));
  if (self.geo.ndim == 0 && index.geo.ndim == 0 && src.geo.ndim == 0)  // one element into one element
    return view(*scatter_add(*unsqueeze(self, 0), 0, *unsqueeze(index, 0), *unsqueeze(src, 0)), {});
  const int d = wrap_dim(dim, self.geo, "scatter_add");
  if (index.geo.ndim != self.geo.ndim || src.geo.ndim != self.geo.ndim)
    throw ShapeError(detail::cat("[scatter_add] index ", index.geo.shape(), ", self ", self.geo.shape(), " and src ",
                                 src.geo.shape(), " must have the same number of dims"));
  for (int i = 0; i < self.geo.ndim; ++i)
    if (index.geo.sizes[i] > src.geo.sizes[i] || (i != d && index.geo.sizes[i] > self.geo.sizes[i]))
      throw ShapeError(detail::cat("[scatter_add] index ", index.geo.shape(), " is larger than src ",
                                   src.geo.shape(), " or (outside dim ", d, ") than self ", self.geo.shape(),
                                   " in dim ", i));
  check_settled_bounds(index, d, self.geo.sizes[d], "scatter_add");
  // Only src's leading block of the index's shape is read.
  Geometry src_geo = src.geo;
  for (int i = 0; i < src_geo.ndim; ++i) src_geo.sizes[i] = index.geo.sizes[i];
  TensorRef out = fresh_output(self.geo.shape(), self.dtype, "scatter_add");
  Node node;
  node.op = OpId::ScatterAdd;
  node.dtype = self.dtype;
  node.arity = 3;
  node.attrs.i[0] = d;
  node.in[0] = tensor_operand(self, self.geo);
  node.in[1] = tensor_operand(index, index.geo);
  node.in[2] = tensor_operand(src, src_geo);
  node.out = tensor_operand(*out, out->geo);
  const TensorImpl* ins[kMaxArity] = {&self, &index, &src};
  push(node, ins, out->storage, true);
  return out;
}

}  // namespace kiln::trace

#include "trace/record_util.h"

#include <kiln/error.h>

#include "trace/object_pool.h"
#include "trace/trace_buffer.h"

namespace kiln::trace {

TensorRef fresh_output(IntArrayRef shape, ScalarType dtype, const char* op) {
  auto t = make_pooled<TensorImpl>();
  t->geo = Geometry::contiguous(shape, op);
  t->dtype = dtype;
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(t->geo.numel()), element_size(dtype), &bytes))
    throw ShapeError(detail::cat("[", op, "] shape ", shape, " of ", dtype, " does not fit in memory"));
  t->storage = make_pooled<Storage>(bytes);
  return t;
}

Geometry broadcast_geometry(const Geometry& g, IntArrayRef shape) {
  if (g.shape() == shape) return g;
  Geometry out;
  out.ndim = static_cast<std::int32_t>(shape.size());
  out.offset = g.offset;
  int lead = out.ndim - g.ndim;
  for (int d = 0; d < out.ndim; ++d) {
    out.sizes[d] = shape[d];
    int src = d - lead;
    out.strides[d] = (src < 0 || g.sizes[src] != shape[d]) ? 0 : g.strides[src];
  }
  return out;
}

void broadcast_into(Geometry& out, IntArrayRef shape, const char* op) {
  if (out.shape() == shape) return;  // the common case: equal shapes
  int nd = std::max<int>(out.ndim, static_cast<int>(shape.size()));
  if (nd > kMaxDims)
    throw ShapeError(detail::cat("[", op, "] broadcasting ", out.shape(), " and ", shape, " gives more than ",
                                 kMaxDims, " dims"));
  Geometry merged;
  merged.ndim = nd;
  for (int d = 0; d < nd; ++d) {
    int a = d - (nd - out.ndim), b = d - (nd - static_cast<int>(shape.size()));
    std::int64_t sa = a >= 0 ? out.sizes[a] : 1, sb = b >= 0 ? shape[b] : 1;
    if (sa != sb && sa != 1 && sb != 1)
      throw ShapeError(detail::cat("[", op, "] shapes ", out.shape(), " and ", shape,
                                   " cannot be broadcast: size ", sa, " vs ", sb, " at dim ", d - nd));
    merged.sizes[d] = sa == 1 ? sb : sa;
  }
  out = merged;
}

Operand tensor_operand(const TensorImpl& t, const Geometry& geo) {
  Operand o;
  o.value = 0;  // filled by the buffer
  o.dtype = t.dtype;
  o.geo = geo;
  return o;
}

void push(Node& node, const TensorImpl* const* ins, const std::shared_ptr<Storage>& out, bool fresh_out) {
  const std::shared_ptr<Storage>* storages[kMaxArity] = {};
  for (int k = 0; k < node.arity; ++k) {
    if (!ins[k]) continue;
    if (const std::string* failure = ins[k]->storage->failure())
      throw Error(detail::cat("[", name(node.op), "] an input could not be computed earlier: ", *failure));
    storages[k] = &ins[k]->storage;
  }
  TraceBuffer::current().append(node, storages, out, fresh_out);
}

TensorRef record_unary(OpId op, const TensorImpl& x, IntArrayRef shape, ScalarType dtype, const Attrs& attrs) {
  TensorRef out = fresh_output(shape, dtype, name(op));
  Node node;
  node.op = op;
  node.dtype = x.dtype;
  node.arity = 1;
  node.attrs = attrs;
  node.in[0] = tensor_operand(x, x.geo);
  node.out = tensor_operand(*out, out->geo);
  const TensorImpl* ins[kMaxArity] = {&x};
  push(node, ins, out->storage, true);
  return out;
}

void check_writable(const TensorImpl& self, const char* op) {
  if (self.geo.has_internal_overlap())
    throw ValueError(detail::cat("[", op, "] cannot write to a tensor of shape ", self.geo.shape(), " with strides ",
                                 self.geo.stride(),
                                 ": several of its elements share one memory location (an expanded view); "
                                 "clone() it first"));
}

}  // namespace kiln::trace

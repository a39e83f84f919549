// cumsum, cumprod and argsort: ops over each line of the input along one dim. A
// zero-dim input is one line of one element, as in LibTorch.
#include "trace/record.h"
#include "trace/record_util.h"
#include "trace/views.h"

namespace kiln::trace {
namespace {

TensorRef scan_node(OpId op, const TensorImpl& x, int dim, std::int64_t flag, ScalarType out_dtype) {
  if (x.geo.ndim == 0) return view(*scan_node(op, *unsqueeze(x, 0), 0, flag, out_dtype), {});
  TensorRef out = fresh_output(x.geo.shape(), out_dtype, name(op));
  Node node;
  node.op = op;
  node.dtype = x.dtype;
  node.arity = 1;
  node.attrs.i[0] = dim;
  node.attrs.i[1] = flag;
  node.in[0] = tensor_operand(x, x.geo);
  node.out = tensor_operand(*out, out->geo);
  const TensorImpl* ins[kMaxArity] = {&x};
  push(node, ins, out->storage, true);
  return out;
}

}  // namespace

TensorRef cumulative(OpId op, const TensorImpl& x, std::int64_t dim, bool reverse) {
  return scan_node(op, x, wrap_dim(dim, x.geo, name(op)), reverse, x.dtype);
}

TensorRef argsort(const TensorImpl& x, std::int64_t dim, bool descending, const char* op) {
  return scan_node(OpId::Argsort, x, wrap_dim(dim, x.geo, op), descending, ScalarType::Int64);
}

}  // namespace kiln::trace

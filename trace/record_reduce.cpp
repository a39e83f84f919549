// Reductions: dims to a bit mask, output shape with or without kept dims,
// and LibTorch's accumulation dtypes.
#include <kiln/error.h>

#include "trace/record.h"
#include "trace/record_util.h"

namespace kiln::trace {

std::int64_t reduction_mask(IntArrayRef dims, int nd, const char* op_name) {
  if (dims.empty()) return (std::int64_t{1} << nd) - 1;
  std::int64_t mask = 0;
  for (std::int64_t d : dims) {
    int w = wrap_dim(d, nd, op_name);
    if (nd == 0) continue;  // reducing a zero-dim tensor over dim 0 is the identity
    if (mask & (std::int64_t{1} << w))
      throw ValueError(detail::cat("[", op_name, "] dim ", w, " appears multiple times in the list of dims ", dims));
    mask |= std::int64_t{1} << w;
  }
  return mask;
}

TensorRef reduce(OpId op, const TensorImpl& x, IntArrayRef dims, bool keepdim) {
  const char* op_name = name(op);
  const int nd = x.geo.ndim;
  const std::int64_t mask = reduction_mask(dims, nd, op_name);

  DtypeRule rule = info(op).rule;
  if (rule != DtypeRule::Accumulate) {
    // max/min/argmax/argmin have no identity: an empty reduction has no answer.
    for (int d = 0; d < nd; ++d)
      if ((mask >> d & 1) && x.geo.sizes[d] == 0)
        throw ShapeError(detail::cat("[", op_name, "] cannot reduce over dim ", d, " of size 0 (input shape ",
                                     x.geo.shape(), ")"));
  }
  ScalarType compute = x.dtype;
  if (rule == DtypeRule::Accumulate && !is_floating_point(x.dtype)) compute = ScalarType::Int64;
  ScalarType out_dtype = rule == DtypeRule::Index ? ScalarType::Int64 : compute;

  std::int64_t shape[kMaxDims];
  std::size_t n = 0;
  for (int d = 0; d < nd; ++d) {
    if (!(mask >> d & 1)) shape[n++] = x.geo.sizes[d];
    else if (keepdim) shape[n++] = 1;
  }

  TensorRef converted;
  const TensorImpl* in = &x;
  if (compute != x.dtype) {
    converted = convert(x, compute);
    in = converted.get();
  }
  TensorRef out = fresh_output({shape, n}, out_dtype, op_name);
  Node node;
  node.op = op;
  node.dtype = compute;
  node.arity = 1;
  node.attrs.i[0] = mask;
  node.attrs.i[1] = keepdim;
  node.in[0] = tensor_operand(*in, in->geo);
  node.out = tensor_operand(*out, out->geo);
  const TensorImpl* ins[kMaxArity] = {in};
  push(node, ins, out->storage, true);
  return out;
}

}  // namespace kiln::trace

// Batched matrix product: inner dims checked, batch dims broadcast.
#include <kiln/error.h>

#include "trace/record.h"
#include "trace/record_util.h"

namespace kiln::trace {

TensorRef matmul(const TensorImpl& a, const TensorImpl& b, const char* op) {
  const Geometry &ga = a.geo, &gb = b.geo;
  KILN_CHECK(ga.ndim >= 2 && gb.ndim >= 2, "matmul operands must be at least 2-D here");
  std::int64_t m = ga.sizes[ga.ndim - 2], k = ga.sizes[ga.ndim - 1];
  std::int64_t k2 = gb.sizes[gb.ndim - 2], n = gb.sizes[gb.ndim - 1];
  if (k != k2)
    throw ShapeError(detail::cat("[", op, "] ", ga.shape(), " @ ", gb.shape(), ": inner dimensions ", k, " and ", k2,
                                 " differ"));
  ScalarType t = promote_types(a.dtype, b.dtype);
  if (t == ScalarType::Bool)
    throw DtypeError(detail::cat("[", op, "] is not supported for Bool tensors (", ga.shape(), " @ ", gb.shape(), ")"));

  Geometry batch;
  broadcast_into(batch, {ga.sizes, static_cast<std::size_t>(ga.ndim - 2)}, op);
  broadcast_into(batch, {gb.sizes, static_cast<std::size_t>(gb.ndim - 2)}, op);
  std::int64_t out_shape[kMaxDims];
  int nd = batch.ndim + 2;
  if (nd > kMaxDims) throw ShapeError(detail::cat("[", op, "] result would have more than ", kMaxDims, " dims"));
  for (int d = 0; d < batch.ndim; ++d) out_shape[d] = batch.sizes[d];
  out_shape[nd - 2] = m;
  out_shape[nd - 1] = n;

  const TensorImpl* ins[kMaxArity] = {&a, &b};
  TensorRef holders[2];
  for (int i = 0; i < 2; ++i) {
    if (ins[i]->dtype != t) {
      holders[i] = convert(*ins[i], t);
      ins[i] = holders[i].get();
    }
  }
  auto operand = [&](const TensorImpl& x, std::int64_t rows, std::int64_t cols) {
    std::int64_t full[kMaxDims];
    for (int d = 0; d < batch.ndim; ++d) full[d] = batch.sizes[d];
    full[nd - 2] = rows;
    full[nd - 1] = cols;
    return tensor_operand(x, broadcast_geometry(x.geo, {full, static_cast<std::size_t>(nd)}));
  };
  TensorRef out = fresh_output({out_shape, static_cast<std::size_t>(nd)}, t, op);
  Node node;
  node.op = OpId::MatMul;
  node.dtype = t;
  node.arity = 2;
  node.in[0] = operand(*ins[0], m, k);
  node.in[1] = operand(*ins[1], k, n);
  node.out = tensor_operand(*out, out->geo);
  push(node, ins, out->storage, true);
  return out;
}

}  // namespace kiln::trace

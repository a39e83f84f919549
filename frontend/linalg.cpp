// matmul and its family. The primitive is a batched [..., M, K] @ [..., K, N];
// LibTorch's 1-D rules are applied here by adding and removing a dim.
#include <kiln/error.h>
#include <kiln/frontend/functions.h>

#include "frontend/autograd/op_node.h"
#include "frontend/handle.h"

namespace kiln {

using frontend::unwrap;
using frontend::wrap;

namespace {

Tensor batched(const Tensor& a, const Tensor& b, const char* op) {
  const auto &ia = unwrap(a, op), &ib = unwrap(b, op);
  Tensor out = wrap(trace::matmul(ia, ib, op));
  if (autograd::needs_history({ia, ib})) autograd::record_op(trace::OpId::MatMul, {ia, ib}, {}, out);
  return out;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  const auto &ia = unwrap(a, "matmul"), &ib = unwrap(b, "matmul");
  int da = ia.geo.ndim, db = ib.geo.ndim;
  if (da == 0 || db == 0)
    throw ShapeError(detail::cat("[matmul] both arguments need at least 1 dim, got ", ia.geo.shape(), " @ ",
                                 ib.geo.shape()));
  std::int64_t ka = ia.geo.sizes[da - 1], kb = ib.geo.sizes[db == 1 ? 0 : db - 2];
  if (ka != kb)
    throw ShapeError(detail::cat("[matmul] ", ia.geo.shape(), " @ ", ib.geo.shape(), ": inner dimensions ", ka,
                                 " and ", kb, " differ"));
  if (da == 1 && db == 1) return batched(a.unsqueeze(0), b.unsqueeze(1), "matmul").reshape({});
  if (db == 1) return batched(a, b.unsqueeze(1), "matmul").squeeze(-1);
  if (da == 1) return batched(a.unsqueeze(0), b, "matmul").squeeze(-2);
  return batched(a, b, "matmul");
}

Tensor mm(const Tensor& a, const Tensor& b) {
  if (unwrap(a, "mm").geo.ndim != 2 || unwrap(b, "mm").geo.ndim != 2)
    throw ShapeError(detail::cat("[mm] expects two 2-D matrices, got ", a.sizes(), " and ", b.sizes()));
  return batched(a, b, "mm");
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  if (unwrap(a, "bmm").geo.ndim != 3 || unwrap(b, "bmm").geo.ndim != 3 || a.size(0) != b.size(0))
    throw ShapeError(detail::cat("[bmm] expects two 3-D tensors with equal batch sizes, got ", a.sizes(), " and ",
                                 b.sizes()));
  return batched(a, b, "bmm");
}

Tensor addmm(const Tensor& self, const Tensor& m1, const Tensor& m2, Scalar beta, Scalar alpha) {
  Tensor product = mm(m1, m2);
  if (!frontend::is_one(alpha)) product = product * alpha;
  // beta == 0 ignores self entirely (NaN in self does not leak), as in LibTorch.
  if (beta.to_double() == 0.0) {
    (void)self.expand(product.sizes());  // still a shape error if self does not broadcast
    return product;
  }
  return frontend::is_one(beta) ? product + self : product + self * beta;
}

Tensor Tensor::matmul(const Tensor& o) const { return kiln::matmul(*this, o); }
Tensor Tensor::mm(const Tensor& o) const { return kiln::mm(*this, o); }
Tensor Tensor::bmm(const Tensor& o) const { return kiln::bmm(*this, o); }

namespace nn::functional {

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  if (unwrap(weight, "linear").geo.ndim != 2)
    throw ShapeError(detail::cat("[linear] weight must be 2-D [out, in], got ", weight.sizes()));
  Tensor y = kiln::matmul(x, weight.t());
  return bias.defined() ? y + bias : y;
}
Tensor relu(const Tensor& x) { return x.relu(); }
Tensor gelu(const Tensor& x, const std::string& approximate) { return kiln::gelu(x, approximate); }
Tensor softmax(const Tensor& x, std::int64_t dim) { return x.softmax(dim); }
Tensor log_softmax(const Tensor& x, std::int64_t dim) { return x.log_softmax(dim); }

}  // namespace nn::functional
}  // namespace kiln

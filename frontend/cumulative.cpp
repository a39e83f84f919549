// cumsum and cumprod: one primitive each (trace/record_scan.cpp), after a
// cast to the type LibTorch computes in.
#include <kiln/frontend/functions.h>

#include "frontend/autograd/op_node.h"
#include "frontend/cumulative.h"
#include "frontend/handle.h"

namespace kiln {

namespace frontend {

Tensor cumulative(trace::OpId op, const Tensor& x, std::int64_t dim, bool reverse) {
  const auto& impl = unwrap(x, trace::name(op));
  Tensor out = wrap(trace::cumulative(op, impl, dim, reverse));
  if (autograd::needs_history({impl})) {
    trace::Attrs attrs;
    attrs.i[0] = trace::wrap_dim(dim, impl.geo, trace::name(op));
    attrs.i[1] = reverse;
    autograd::record_op(op, {impl}, attrs, out);
  }
  return out;
}

}  // namespace frontend

namespace {

// The input cast to `dtype`, by default to Long when integral or bool.
Tensor cast_for(trace::OpId op, const Tensor& x, std::int64_t dim, std::optional<ScalarType> dtype) {
  const auto& impl = frontend::unwrap(x, trace::name(op));
  trace::wrap_dim(dim, impl.geo, trace::name(op));  // a bad dim fails before the cast is recorded
  const ScalarType want = dtype.value_or(kiln::is_floating_point(impl.dtype) ? impl.dtype : kInt64);
  return want == impl.dtype ? x : frontend::convert(x, want);
}

}  // namespace

Tensor Tensor::cumsum(std::int64_t dim, std::optional<ScalarType> dtype) const {
  return frontend::cumulative(trace::OpId::Cumsum, cast_for(trace::OpId::Cumsum, *this, dim, dtype), dim);
}
Tensor Tensor::cumprod(std::int64_t dim, std::optional<ScalarType> dtype) const {
  return frontend::cumulative(trace::OpId::Cumprod, cast_for(trace::OpId::Cumprod, *this, dim, dtype), dim);
}

Tensor cumsum(const Tensor& x, std::int64_t dim, std::optional<ScalarType> dtype) { return x.cumsum(dim, dtype); }
Tensor cumprod(const Tensor& x, std::int64_t dim, std::optional<ScalarType> dtype) { return x.cumprod(dim, dtype); }

}  // namespace kiln

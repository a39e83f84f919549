// cumsum: one primitive (trace/record_scan.cpp), after a cast to the type
// LibTorch sums in.
#include <kiln/frontend/functions.h>

#include "frontend/autograd/op_node.h"
#include "frontend/cumsum.h"
#include "frontend/handle.h"

namespace kiln {

namespace frontend {

Tensor cumsum_along(const Tensor& x, std::int64_t dim, bool reverse) {
  const auto& impl = unwrap(x, "cumsum");
  Tensor out = wrap(trace::cumsum(impl, dim, reverse));
  if (autograd::needs_history({impl})) {
    trace::Attrs attrs;
    attrs.i[0] = trace::scan_dim(impl, dim, "cumsum");
    attrs.i[1] = reverse;
    autograd::record_op(trace::OpId::Cumsum, {impl}, attrs, out);
  }
  return out;
}

}  // namespace frontend

Tensor Tensor::cumsum(std::int64_t dim, std::optional<ScalarType> dtype) const {
  const auto& impl = frontend::unwrap(*this, "cumsum");
  trace::scan_dim(impl, dim, "cumsum");  // a bad dim fails before the cast is recorded
  const ScalarType sum_dtype = dtype.value_or(kiln::is_floating_point(impl.dtype) ? impl.dtype : kInt64);
  return frontend::cumsum_along(sum_dtype == impl.dtype ? *this : frontend::convert(*this, sum_dtype), dim, false);
}

Tensor cumsum(const Tensor& x, std::int64_t dim, std::optional<ScalarType> dtype) { return x.cumsum(dim, dtype); }

}  // namespace kiln

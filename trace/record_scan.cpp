// cumsum, cumprod and argsort: ops over each line of the input along one dim. A
// zero-dim input is one line of one element, as in LibTorch.
#include "trace/record.h"
#include "trace/record_util.h"
#include "trace/views.h"

namespace kiln::trace {
namespace {

TensorRef scan_node(OpId op, const TensorImpl& x, int dim, std::int64_t flag, ScalarType out_dtype) {
  if (x.geo.ndim == 0) return view(*scan_node(op, *unsqueeze(x, 0), 0, flag, out_dtype), {});
  Attrs attrs;
  attrs.i[0] = dim;
  attrs.i[1] = flag;
  return record_unary(op, x, x.geo.shape(), out_dtype, attrs);
}

}  // namespace

TensorRef cumulative(OpId op, const TensorImpl& x, std::int64_t dim, bool reverse) {
  return scan_node(op, x, wrap_dim(dim, x.geo, name(op)), reverse, x.dtype);
}

TensorRef argsort(const TensorImpl& x, std::int64_t dim, bool descending, const char* op) {
  return scan_node(OpId::Argsort, x, wrap_dim(dim, x.geo, op), descending, ScalarType::Int64);
}

}  // namespace kiln::trace

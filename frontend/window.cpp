#include "frontend/window.h"

#include "frontend/autograd/op_node.h"
#include "frontend/handle.h"
#include "trace/record.h"

namespace kiln::frontend {

Tensor im2col(const Tensor& x, const trace::Window2d& window, const char* op) {
  const auto& impl = unwrap(x, op);
  Tensor out = wrap(trace::im2col(impl, window, op));
  if (autograd::needs_history({impl})) autograd::record_op(trace::OpId::Im2col, {impl}, window.attrs(), out);
  return out;
}

Tensor col2im(const Tensor& columns, const std::int64_t size[2], const trace::Window2d& window, const char* op) {
  const auto& impl = unwrap(columns, op);
  Tensor out = wrap(trace::col2im(impl, size, window, op));
  if (autograd::needs_history({impl})) autograd::record_op(trace::OpId::Col2im, {impl}, window.attrs(), out);
  return out;
}

}  // namespace kiln::frontend

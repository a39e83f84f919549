// im2col and col2im: the sliding windows of a 2-d input as columns, and
// their adjoint (columns summed back into the input's shape).
#include <kiln/error.h>

#include "trace/record.h"
#include "trace/record_util.h"

namespace kiln::trace {
namespace {

std::string window_text(const Window2d& w) {
  auto pair = [](const std::int64_t* v) { return detail::cat("[", v[0], ", ", v[1], "]"); };
  return detail::cat("kernel_size=", pair(w.kernel), ", dilation=", pair(w.dilation), ", padding=", pair(w.padding),
                     ", stride=", pair(w.stride));
}

void check_window(const Window2d& w, const char* op) {
  for (int d = 0; d < 2; ++d) {
    const bool ok = w.kernel[d] >= 1 && w.stride[d] >= 1 && w.dilation[d] >= 1 && w.padding[d] >= 0 &&
                    w.kernel[d] <= Window2d::kMaxValue && w.stride[d] <= Window2d::kMaxValue &&
                    w.dilation[d] <= Window2d::kMaxValue && w.padding[d] <= Window2d::kMaxValue;
    if (!ok)
      throw ValueError(detail::cat("[", op, "] expected kernel_size, stride and dilation of 1 to ",
                                   Window2d::kMaxValue, " and padding of 0 to ", Window2d::kMaxValue, ", got ",
                                   window_text(w)));
  }
}

// The number of windows along each dim of a [.., H, W] input; ShapeError
// naming `what` when one does not fit.
void windows_of(const std::int64_t size[2], const Window2d& w, const char* op, IntArrayRef what, std::int64_t out[2]) {
  for (int d = 0; d < 2; ++d) {
    out[d] = w.out_size(d, size[d]);
    if (out[d] < 1)
      throw ShapeError(detail::cat("[", op, "] ", what, ": spatial size [", size[0], ", ", size[1],
                                   "] is too small for ", window_text(w), " (no window fits)"));
  }
}

}  // namespace

TensorRef im2col(const TensorImpl& x, const Window2d& window, const char* op) {
  check_window(window, op);
  if (x.geo.ndim != 4)
    throw ShapeError(detail::cat("[", op, "] expected a 4-d input [N, C, H, W], got ", x.geo.shape()));
  const std::int64_t size[2] = {x.geo.sizes[2], x.geo.sizes[3]};
  std::int64_t windows[2];
  windows_of(size, window, op, x.geo.shape(), windows);
  return record_unary(OpId::Im2col, x, {x.geo.sizes[0], x.geo.sizes[1] * window.kernel_numel(), windows[0] * windows[1]},
                      x.dtype, window.attrs());
}

TensorRef col2im(const TensorImpl& columns, const std::int64_t size[2], const Window2d& window, const char* op) {
  check_window(window, op);
  const IntArrayRef shape = columns.geo.shape();
  if (columns.geo.ndim != 3)
    throw ShapeError(detail::cat("[", op, "] expected 3-d columns [N, C*kh*kw, L], got ", shape));
  std::int64_t windows[2];
  windows_of(size, window, op, shape, windows);
  const std::int64_t k = window.kernel_numel();
  if (columns.geo.sizes[1] % k != 0 || columns.geo.sizes[2] != windows[0] * windows[1])
    throw ShapeError(detail::cat("[", op, "] columns ", shape, " do not match output_size=[", size[0], ", ",
                                 size[1], "] with ", window_text(window), ": expected [N, C*", k, ", ",
                                 windows[0] * windows[1], "]"));
  return record_unary(OpId::Col2im, columns, {columns.geo.sizes[0], columns.geo.sizes[1] / k, size[0], size[1]},
                      columns.dtype, window.attrs());
}

}  // namespace kiln::trace

#include "frontend/nn/windows.h"

#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

#include "frontend/window.h"

namespace kiln::nn::detail {

std::vector<std::int64_t> output_sizes(const Tensor& input, const WindowGeometry& g, const char* op) {
  const std::size_t s = g.kernel.size();
  std::vector<std::int64_t> out(s);
  for (std::size_t i = 0; i < s; ++i) {
    if (g.kernel[i] < 1 || g.stride[i] < 1 || g.dilation[i] < 1 || g.padding[i] < 0)
      throw ValueError(kiln::detail::cat("[", op, "] kernel size, stride and dilation must be positive and padding ",
                                         "non-negative (dim ", i, ": kernel ", g.kernel[i], ", stride ", g.stride[i],
                                         ", dilation ", g.dilation[i], ", padding ", g.padding[i], ")"));
    const std::int64_t in = input.size(static_cast<std::int64_t>(2 + i));
    const std::int64_t span = g.dilation[i] * (g.kernel[i] - 1) + 1;
    const std::int64_t room = in + 2 * g.padding[i] - span;
    if (room < 0)
      throw ShapeError(kiln::detail::cat("[", op, "] input of shape ", input.sizes(), " is smaller than the kernel ",
                                         "in spatial dim ", i, " (size ", in, " + 2 x padding ", g.padding[i],
                                         " < dilated kernel ", span, ")"));
    std::int64_t n = (g.ceil_mode ? (room + g.stride[i] - 1) / g.stride[i] : room / g.stride[i]) + 1;
    // ceil_mode: the last window must start inside the input or the left padding.
    if (g.ceil_mode && (n - 1) * g.stride[i] >= in + g.padding[i]) --n;
    out[i] = n;
  }
  return out;
}

std::vector<std::int64_t> padding_after(const Tensor& input, const WindowGeometry& g,
                                        const std::vector<std::int64_t>& out) {
  std::vector<std::int64_t> after(g.kernel.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    const std::int64_t needed = (out[i] - 1) * g.stride[i] + g.dilation[i] * (g.kernel[i] - 1) + 1;
    const std::int64_t have = input.size(static_cast<std::int64_t>(2 + i)) + g.padding[i];
    after[i] = std::max<std::int64_t>(g.padding[i], needed - have);
  }
  return after;
}

std::vector<std::int64_t> per_dim(IntArrayRef v, std::size_t spatial, IntArrayRef fallback, const char* what,
                                  const char* op) {
  if (v.empty()) v = fallback;
  if (v.size() == 1) return std::vector<std::int64_t>(spatial, v[0]);
  if (v.size() != spatial)
    throw ValueError(kiln::detail::cat("[", op, "] ", what, " must have 1 or ", spatial, " elements, got ", v));
  return v.vec();
}

Tensor pad_spatial(const Tensor& x, const std::vector<std::int64_t>& before, const std::vector<std::int64_t>& after,
                   double value) {
  Tensor y = x;
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (before[i] == 0 && after[i] == 0) continue;
    const auto dim = static_cast<std::int64_t>(2 + i);
    std::vector<Tensor> parts;
    auto edge = [&](std::int64_t n) {
      std::vector<std::int64_t> shape = y.sizes().vec();
      shape[dim] = n;
      return full(shape, value, y.dtype());
    };
    if (before[i] > 0) parts.push_back(edge(before[i]));
    parts.push_back(y);
    if (after[i] > 0) parts.push_back(edge(after[i]));
    y = cat(parts, dim);
  }
  return y;
}

trace::Window2d window_2d(const WindowGeometry& g, bool padding) {
  const std::size_t s = g.kernel.size();
  trace::Window2d w;
  for (std::size_t i = 0; i < s; ++i) {
    const std::size_t d = 2 - s + i;
    w.kernel[d] = g.kernel[i];
    w.stride[d] = g.stride[i];
    w.dilation[d] = g.dilation[i];
    if (padding) w.padding[d] = g.padding[i];
  }
  return w;
}

Tensor window_columns(const Tensor& padded, const WindowGeometry& g, const std::vector<std::int64_t>& out,
                      const char* op) {
  const std::size_t s = g.kernel.size();
  const Tensor image = s == 1 ? padded.unsqueeze(2) : padded;
  const trace::Window2d w = window_2d(g, false);
  const std::int64_t k = w.kernel_numel();
  // The windows that fit `padded`, then only the first `out` of them per dim.
  const std::int64_t rows = w.out_size(0, image.size(2)), cols = w.out_size(1, image.size(3));
  Tensor windows = frontend::im2col(image, w, op).reshape({padded.size(0), padded.size(1), k, rows, cols});
  // Narrowing a dim to its whole size would only add a copy to the gradient.
  const std::int64_t out_rows = s == 1 ? 1 : out[0];
  if (rows != out_rows) windows = windows.narrow(3, 0, out_rows);
  if (cols != out[s - 1]) windows = windows.narrow(4, 0, out[s - 1]);
  std::vector<std::int64_t> shape = {padded.size(0), padded.size(1), k};
  shape.insert(shape.end(), out.begin(), out.end());
  return windows.reshape(shape);
}

}  // namespace kiln::nn::detail

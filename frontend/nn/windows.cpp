#include "frontend/nn/windows.h"

#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

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

std::vector<Tensor> window_slices(const Tensor& padded, const WindowGeometry& g, const std::vector<std::int64_t>& out) {
  const std::size_t s = g.kernel.size();
  std::int64_t count = 1;
  for (std::int64_t k : g.kernel) count *= k;
  std::vector<Tensor> slices;
  slices.reserve(static_cast<std::size_t>(count));
  std::vector<std::int64_t> at(s, 0);  // the kernel offset, row-major
  for (std::int64_t n = 0; n < count; ++n) {
    Tensor w = padded;
    for (std::size_t i = 0; i < s; ++i) {
      const std::int64_t start = at[i] * g.dilation[i];
      w = w.slice(static_cast<std::int64_t>(2 + i), start, start + (out[i] - 1) * g.stride[i] + 1, g.stride[i]);
    }
    slices.push_back(w);
    for (std::size_t i = s; i-- > 0;) {
      if (++at[i] < g.kernel[i]) break;
      at[i] = 0;
    }
  }
  return slices;
}

}  // namespace kiln::nn::detail

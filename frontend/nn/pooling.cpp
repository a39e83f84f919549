// Max and average pooling over the windows as columns (one Im2col op),
// adaptive average pooling as one averaging matrix per spatial dim.
#include <kiln/nn/pooling.h>

#include <cmath>
#include <limits>
#include <ostream>

#include <kiln/autograd.h>
#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

#include "frontend/autograd/function_node.h"
#include "frontend/nn/windows.h"

namespace kiln::nn {
namespace {

// Rank and dtype checks; unbatched inputs get a batch dim of 1 (`unbatched`).
Tensor batched(const Tensor& input, std::size_t spatial, const char* op, bool& unbatched) {
  const auto s = static_cast<std::int64_t>(spatial);
  if (!input.defined() || (input.dim() != s + 1 && input.dim() != s + 2))
    throw ShapeError(kiln::detail::cat("[", op, "] expected a ", s + 1, "-d (unbatched) or ", s + 2,
                                       "-d (batched) input, got ", input.defined() ? input.sizes() : IntArrayRef{}));
  if (!is_floating_point(input.dtype()))
    throw DtypeError(kiln::detail::cat("[", op, "] input must be floating point, got ", input.dtype(), " ",
                                       input.sizes()));
  unbatched = input.dim() == s + 1;
  return unbatched ? input.unsqueeze(0) : input;
}

void check_padding(const detail::WindowGeometry& g, const char* op) {
  for (std::size_t i = 0; i < g.kernel.size(); ++i)
    if (g.padding[i] * 2 > g.dilation[i] * (g.kernel[i] - 1) + 1)
      throw ValueError(kiln::detail::cat("[", op, "] padding should be at most half of the effective kernel size, ",
                                         "got padding ", g.padding[i], " for kernel ", g.kernel[i], " in dim ", i));
}

// A max pool's windows: `windows` holds every window's elements, along
// `offset_dims` (row-major: the kernel offsets in LibTorch's scan order),
// the other dims being [N, C, *out].
struct WindowSet {
  Tensor windows;
  std::vector<std::int64_t> offset_dims;
};

// Windows that tile `padded` (stride == kernel, no dilation, nothing past
// the last window) are a view of it, [N, C, out0, k0, out1, k1], read in
// place; others are one Im2col, [N, C, K, *out]. The view saves the Im2col
// (CNN inference at batch 32: 3.2 -> 2.6 ms). Not under autograd: the
// gradient of the view is a select over [..., out1, k1], whose inner loop
// is k1 long (a 2x2 pooling's gradient took 1 ms longer than Im2col's
// Col2im).
WindowSet max_pool_windows(const Tensor& padded, const detail::WindowGeometry& g, const std::vector<std::int64_t>& out,
                           bool tiled_view, const char* op) {
  WindowSet tiled{Tensor(), {}};
  std::vector<std::int64_t> shape = {padded.size(0), padded.size(1)};
  for (std::size_t i = 0; i < g.kernel.size(); ++i) {
    if (!tiled_view || g.stride[i] != g.kernel[i] || g.dilation[i] != 1 ||
        padded.size(static_cast<std::int64_t>(2 + i)) != out[i] * g.kernel[i])
      return {detail::window_columns(padded, g, out, op), {2}};
    shape.push_back(out[i]);
    shape.push_back(g.kernel[i]);
    tiled.offset_dims.push_back(static_cast<std::int64_t>(shape.size()) - 1);
  }
  tiled.windows = padded.reshape(shape);
  return tiled;
}

// The first maximum of each window over its kernel offsets (a NaN is the
// maximum, the first NaN wins, as in LibTorch), by a chain of selects over
// the offsets: the JIT fuses it into one kernel. (An argmax over the
// offsets and a gather took 15% of a CNN training step on one thread, the
// argmax alone 3.5 ns a position.) `first`, when given, gets the offset of
// that maximum.
Tensor first_maximum(const Tensor& windows, const std::vector<std::int64_t>& offset_dims, Tensor* first) {
  std::int64_t kernel = 1;
  for (std::int64_t d : offset_dims) kernel *= windows.size(d);
  auto at_offset = [&](std::int64_t k) {  // the last offset dim first, so the others keep their places
    Tensor v = windows;
    for (auto d = offset_dims.rbegin(); d != offset_dims.rend(); ++d) {
      v = v.select(*d, k % windows.size(*d));
      k /= windows.size(*d);
    }
    return v;
  };
  Tensor y = at_offset(0);
  if (first && kernel == 1) *first = zeros(y.sizes(), kInt64);
  for (std::int64_t k = 1; k < kernel; ++k) {
    const Tensor v = at_offset(k);
    const Tensor wins = logical_or(v > y, logical_and(v != v, y == y));
    y = where(wins, v, y);
    if (first) *first = k == 1 ? wins.to(kInt64) : where(wins, k, *first);
  }
  return y;
}

// Max pooling's windows to their maxima, with LibTorch's gradient (and node
// name): each window's gradient goes to its first maximum only. Backward is
// one select against the saved offsets; the select chain's own gradient
// would build a zero-filled window set per offset and add them.
Tensor max_pool_with_indices(const Tensor& windows, const std::vector<std::int64_t>& offset_dims) {
  Tensor first, y;
  {
    NoGradGuard no_grad;
    y = first_maximum(windows, offset_dims, &first);
  }
  std::vector<std::int64_t> offsets_shape(static_cast<std::size_t>(windows.dim()), 1);
  for (std::int64_t d : offset_dims) offsets_shape[static_cast<std::size_t>(d)] = windows.size(d);
  autograd::record_function(
      "MaxPool2DWithIndicesBackward0", {windows}, y,
      [offset_dims, offsets_shape](const Tensor& g, const autograd::variable_list& saved) {
        Tensor first = saved[0], grad = g;
        for (std::int64_t d : offset_dims) {
          first = first.unsqueeze(d);
          grad = grad.unsqueeze(d);
        }
        std::int64_t kernel = 1;
        for (std::int64_t size : offsets_shape) kernel *= size;
        const Tensor offsets = arange(kernel, kInt64).view(offsets_shape);
        return autograd::variable_list{where(offsets == first, grad, 0)};
      },
      {first});
  return y;
}

Tensor max_pool(const Tensor& input, detail::WindowGeometry g, const char* op) {
  bool unbatched = false;
  const Tensor x = batched(input, g.kernel.size(), op, unbatched);
  check_padding(g, op);
  const std::vector<std::int64_t> out = detail::output_sizes(x, g, op);
  const Tensor padded = detail::pad_spatial(x, g.padding, detail::padding_after(x, g, out),
                                            -std::numeric_limits<double>::infinity());
  const bool differentiable = GradMode::is_enabled() && padded.requires_grad();
  const auto [windows, offset_dims] = max_pool_windows(padded, g, out, !differentiable, op);
  const Tensor y = differentiable ? max_pool_with_indices(windows, offset_dims)
                                  : first_maximum(windows, offset_dims, nullptr);
  return unbatched ? y.squeeze(0) : y;
}

Tensor avg_pool(const Tensor& input, detail::WindowGeometry g, bool count_include_pad,
                std::optional<std::int64_t> divisor_override, const char* op) {
  bool unbatched = false;
  const Tensor x = batched(input, g.kernel.size(), op, unbatched);
  check_padding(g, op);
  if (divisor_override && *divisor_override == 0)
    throw ValueError(kiln::detail::cat("[", op, "] divisor_override must be non-zero"));
  const std::vector<std::int64_t> out = detail::output_sizes(x, g, op);
  const std::vector<std::int64_t> after = detail::padding_after(x, g, out);
  auto window_sum = [&](const Tensor& padded) { return detail::window_columns(padded, g, out, op).sum(2); };
  const Tensor sum = window_sum(detail::pad_spatial(x, g.padding, after, 0.0));
  Tensor y;
  if (divisor_override) {
    y = sum / static_cast<double>(*divisor_override);
  } else {
    // Each window's divisor: its elements inside the input, plus the zero
    // padding when counted, never ceil_mode's overhang past the padding.
    std::vector<std::int64_t> ones_shape = {1, 1};
    std::vector<std::int64_t> none(g.kernel.size(), 0), overhang(g.kernel.size());
    for (std::size_t i = 0; i < g.kernel.size(); ++i) {
      ones_shape.push_back(x.size(static_cast<std::int64_t>(2 + i)));
      overhang[i] = after[i] - g.padding[i];
    }
    Tensor counted = ones(ones_shape, x.dtype());
    counted = count_include_pad ? detail::pad_spatial(detail::pad_spatial(counted, g.padding, g.padding, 1.0), none,
                                                      overhang, 0.0)
                                : detail::pad_spatial(counted, g.padding, after, 0.0);
    y = sum / window_sum(counted);
  }
  return unbatched ? y.squeeze(0) : y;
}

// [out, in]: row i averages input positions floor(i in / out) .. ceil((i + 1) in / out).
Tensor averaging_matrix(std::int64_t in, std::int64_t out, ScalarType dtype) {
  std::vector<double> a(static_cast<std::size_t>(in * out), 0.0);
  for (std::int64_t i = 0; i < out; ++i) {
    const std::int64_t start = i * in / out, end = ((i + 1) * in + out - 1) / out;
    for (std::int64_t j = start; j < end; ++j) a[i * in + j] = 1.0 / static_cast<double>(end - start);
  }
  return tensor(a, kFloat64).reshape({out, in}).to(dtype);
}

Tensor adaptive_avg_pool(const Tensor& input, const std::vector<std::int64_t>& output_size, const char* op) {
  bool unbatched = false;
  Tensor y = batched(input, output_size.size(), op, unbatched);
  for (std::size_t i = 0; i < output_size.size(); ++i) {
    const auto d = static_cast<std::int64_t>(2 + i);
    if (output_size[i] < 1 || y.size(d) < 1)
      throw ShapeError(kiln::detail::cat("[", op, "] output size ", output_size[i], " and input ", input.sizes(),
                                         " must both be non-empty in spatial dim ", i));
    const Tensor a = averaging_matrix(y.size(d), output_size[i], y.dtype());
    y = y.transpose(d, -1).matmul(a.t()).transpose(d, -1);
  }
  return unbatched ? y.squeeze(0) : y;
}

template <std::size_t D>
detail::WindowGeometry max_geometry(const MaxPoolOptions<D>& o) {
  return {o.kernel_size().vec(), o.stride().vec(), o.padding().vec(), o.dilation().vec(), o.ceil_mode()};
}
template <std::size_t D>
detail::WindowGeometry avg_geometry(const AvgPoolOptions<D>& o) {
  return {o.kernel_size().vec(), o.stride().vec(), o.padding().vec(), std::vector<std::int64_t>(D, 1), o.ceil_mode()};
}

detail::WindowGeometry geometry(std::size_t spatial, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding,
                                IntArrayRef dilation, bool ceil_mode, const char* op) {
  return {detail::per_dim(kernel, spatial, {}, "kernel_size", op), detail::per_dim(stride, spatial, kernel, "stride", op),
          detail::per_dim(padding, spatial, {}, "padding", op), detail::per_dim(dilation, spatial, {}, "dilation", op),
          ceil_mode};
}

}  // namespace

namespace functional {
Tensor max_pool1d(const Tensor& x, const MaxPool1dFuncOptions& o) { return max_pool(x, max_geometry(o), "max_pool1d"); }
Tensor max_pool2d(const Tensor& x, const MaxPool2dFuncOptions& o) { return max_pool(x, max_geometry(o), "max_pool2d"); }
Tensor avg_pool1d(const Tensor& x, const AvgPool1dFuncOptions& o) {
  return avg_pool(x, avg_geometry(o), o.count_include_pad(), o.divisor_override(), "avg_pool1d");
}
Tensor avg_pool2d(const Tensor& x, const AvgPool2dFuncOptions& o) {
  return avg_pool(x, avg_geometry(o), o.count_include_pad(), o.divisor_override(), "avg_pool2d");
}
Tensor adaptive_avg_pool1d(const Tensor& x, const AdaptiveAvgPool1dFuncOptions& o) {
  return adaptive_avg_pool(x, o.output_size().vec(), "adaptive_avg_pool1d");
}
Tensor adaptive_avg_pool2d(const Tensor& x, const AdaptiveAvgPool2dFuncOptions& o) {
  return adaptive_avg_pool(x, o.output_size().vec(), "adaptive_avg_pool2d");
}
}  // namespace functional

template <std::size_t D>
void print_max(std::ostream& s, const std::string& name, const MaxPoolOptions<D>& o) {
  s << name << "(kernel_size=" << o.kernel_size() << ", stride=" << o.stride() << ", padding=" << o.padding()
    << ", dilation=" << o.dilation() << ", ceil_mode=" << (o.ceil_mode() ? "true" : "false") << ")";
}
template <std::size_t D>
void print_avg(std::ostream& s, const std::string& name, const AvgPoolOptions<D>& o) {
  s << name << "(kernel_size=" << o.kernel_size() << ", stride=" << o.stride() << ", padding=" << o.padding() << ")";
}
void MaxPool1dImpl::pretty_print(std::ostream& s) const { print_max(s, name(), options); }
void MaxPool2dImpl::pretty_print(std::ostream& s) const { print_max(s, name(), options); }
void AvgPool1dImpl::pretty_print(std::ostream& s) const { print_avg(s, name(), options); }
void AvgPool2dImpl::pretty_print(std::ostream& s) const { print_avg(s, name(), options); }
void AdaptiveAvgPool1dImpl::pretty_print(std::ostream& s) const {
  s << name() << "(output_size=" << options.output_size() << ")";
}
void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& s) const {
  s << name() << "(output_size=" << options.output_size() << ")";
}

}  // namespace kiln::nn

namespace kiln {

Tensor max_pool1d(const Tensor& x, IntArrayRef k, IntArrayRef s, IntArrayRef p, IntArrayRef d, bool ceil_mode) {
  return nn::max_pool(x, nn::geometry(1, k, s, p, d, ceil_mode, "max_pool1d"), "max_pool1d");
}
Tensor max_pool2d(const Tensor& x, IntArrayRef k, IntArrayRef s, IntArrayRef p, IntArrayRef d, bool ceil_mode) {
  return nn::max_pool(x, nn::geometry(2, k, s, p, d, ceil_mode, "max_pool2d"), "max_pool2d");
}
Tensor avg_pool1d(const Tensor& x, IntArrayRef k, IntArrayRef s, IntArrayRef p, bool ceil_mode, bool include_pad) {
  return nn::avg_pool(x, nn::geometry(1, k, s, p, 1, ceil_mode, "avg_pool1d"), include_pad, std::nullopt,
                      "avg_pool1d");
}
Tensor avg_pool2d(const Tensor& x, IntArrayRef k, IntArrayRef s, IntArrayRef p, bool ceil_mode, bool include_pad,
                  std::optional<std::int64_t> divisor_override) {
  return nn::avg_pool(x, nn::geometry(2, k, s, p, 1, ceil_mode, "avg_pool2d"), include_pad, divisor_override,
                      "avg_pool2d");
}
Tensor adaptive_avg_pool1d(const Tensor& x, IntArrayRef output_size) {
  return nn::adaptive_avg_pool(x, nn::detail::per_dim(output_size, 1, {}, "output_size", "adaptive_avg_pool1d"), "adaptive_avg_pool1d");
}
Tensor adaptive_avg_pool2d(const Tensor& x, IntArrayRef output_size) {
  return nn::adaptive_avg_pool(x, nn::detail::per_dim(output_size, 2, {}, "output_size", "adaptive_avg_pool2d"), "adaptive_avg_pool2d");
}

}  // namespace kiln

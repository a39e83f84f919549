// Transposed convolution as the adjoint of conv.cpp's lowering: one GEMM
// gives every input position's contribution to its output window, as
// columns, and one Col2im sums the overlapping windows (frontend/window.h).
// Gradients come from Col2im's (an Im2col) and the GEMM's.
#include <kiln/nn/conv_transpose.h>

#include <algorithm>
#include <ostream>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

#include "frontend/nn/conv_common.h"
#include "frontend/nn/windows.h"
#include "frontend/window.h"

namespace kiln::nn {
namespace {

struct Transposed {
  std::vector<std::int64_t> stride, padding, output_padding, dilation;
  std::int64_t groups = 1;
};

// [N, C, *spatial] (or unbatched [C, *spatial]) x [C, O/groups, *kernel].
Tensor convolve_transposed(const Tensor& input, const Tensor& weight, const Tensor& bias, const Transposed& t,
                           std::size_t spatial, const char* op) {
  const auto s = static_cast<std::int64_t>(spatial);
  if (!input.defined() || !weight.defined()) throw ValueError(kiln::detail::cat("[", op, "] undefined input or weight"));
  if (input.dim() == s + 1) return convolve_transposed(input.unsqueeze(0), weight, bias, t, spatial, op).squeeze(0);
  if (input.dim() != s + 2 || weight.dim() != s + 2)
    throw ShapeError(kiln::detail::cat("[", op, "] expected a ", s + 1, "-d (unbatched) or ", s + 2,
                                       "-d (batched) input and a ", s + 2, "-d weight, got input ", input.sizes(),
                                       " and weight ", weight.sizes()));
  const std::int64_t n = input.size(0), c = input.size(1), g = t.groups;
  if (g < 1 || weight.size(0) != c || c % g != 0)
    throw ShapeError(kiln::detail::cat("[", op, "] input ", input.sizes(), " has ", c, " channels; weight ",
                                       weight.sizes(), " with groups=", g, " expects ", weight.size(0),
                                       " (divisible by groups)"));
  const std::int64_t o = weight.size(1) * g;
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != o))
    throw ShapeError(kiln::detail::cat("[", op, "] bias ", bias.sizes(), " must have one element per out channel (",
                                       o, ")"));
  detail::WindowGeometry geo;
  for (std::int64_t i = 0; i < s; ++i) geo.kernel.push_back(weight.size(2 + i));
  geo.stride = t.stride;
  geo.dilation = t.dilation;
  // Col2im sums the windows onto a canvas of every position a window
  // reaches, (in - 1) x stride + dilation x (kernel - 1) + 1 per dim (no
  // padding, so it holds exactly one window per input position); the
  // output is that canvas from `padding` on, output_size = canvas - 2 x
  // padding + output_padding long, with zeros past the canvas's end.
  std::vector<std::int64_t> canvas, size;
  std::int64_t l = 1;
  for (std::int64_t i = 0; i < s; ++i) {
    const auto d = static_cast<std::size_t>(i);
    if (t.stride[d] < 1 || t.dilation[d] < 1 || t.padding[d] < 0 || t.output_padding[d] < 0)
      throw ValueError(kiln::detail::cat("[", op, "] stride and dilation must be positive and padding and output ",
                                         "padding non-negative, got stride ", IntArrayRef(t.stride), ", dilation ",
                                         IntArrayRef(t.dilation), ", padding ", IntArrayRef(t.padding),
                                         ", output_padding ", IntArrayRef(t.output_padding)));
    if (t.output_padding[d] >= t.stride[d] && t.output_padding[d] >= t.dilation[d])
      throw ValueError(kiln::detail::cat("[", op, "] output padding must be smaller than either stride or dilation, ",
                                         "but got output_padding ", IntArrayRef(t.output_padding), ", stride ",
                                         IntArrayRef(t.stride), ", dilation ", IntArrayRef(t.dilation)));
    canvas.push_back((input.size(2 + i) - 1) * t.stride[d] + t.dilation[d] * (geo.kernel[d] - 1) + 1);
    size.push_back(canvas[d] - 2 * t.padding[d] + t.output_padding[d]);
    if (size[d] < 1)
      throw ShapeError(kiln::detail::cat("[", op, "] input ", input.sizes(), " with weight ", weight.sizes(),
                                         ", stride ", IntArrayRef(t.stride), ", padding ", IntArrayRef(t.padding),
                                         " and dilation ", IntArrayRef(t.dilation), " gives an empty output"));
    l *= input.size(2 + i);
  }
  const trace::Window2d window = detail::window_2d(geo, false);  // 1-d: a 2-d window of height 1
  const std::int64_t k = window.kernel_numel();
  // [groups, C/groups, O/groups x K]ᵀ x [N, groups, C/groups, L] -> [N, O x K, L]
  const Tensor w = weight.reshape({g, c / g, o / g * k}).transpose(1, 2);
  const Tensor columns = detail::grouped_product(w, input.reshape({n, g, c / g, l})).reshape({n, o * k, l});
  const std::int64_t canvas_2d[2] = {s == 1 ? 1 : canvas[0], canvas[static_cast<std::size_t>(s - 1)]};
  Tensor y = frontend::col2im(columns, canvas_2d, window, op);
  if (s == 1) y = y.squeeze(2);
  std::vector<std::int64_t> past_canvas(spatial);
  for (std::size_t d = 0; d < spatial; ++d) {
    const std::int64_t kept = std::min(size[d], std::max<std::int64_t>(canvas[d] - t.padding[d], 0));
    y = y.narrow(static_cast<std::int64_t>(2 + d), std::min(t.padding[d], canvas[d]), kept);
    past_canvas[d] = size[d] - kept;
  }
  y = detail::pad_spatial(y, std::vector<std::int64_t>(spatial, 0), past_canvas, 0.0);
  return detail::add_channel_bias(y, bias);
}

// LibTorch's _output_padding: the padding that makes the output
// `output_size` (spatial sizes, or with the batch and channel dims).
std::vector<std::int64_t> padding_for(const Tensor& input, const std::vector<std::int64_t>& output_size,
                                      const Transposed& t, const std::vector<std::int64_t>& kernel, const char* op) {
  const std::size_t spatial = kernel.size();
  std::vector<std::int64_t> want = output_size;
  if (want.size() == spatial + 2) want.erase(want.begin(), want.begin() + 2);
  if (want.size() != spatial)
    throw ShapeError(kiln::detail::cat("[", op, "] output_size must have ", spatial, " or ", spatial + 2,
                                       " elements, got ", IntArrayRef(output_size)));
  std::vector<std::int64_t> padding(spatial);
  const std::int64_t first = input.dim() - static_cast<std::int64_t>(spatial);
  for (std::size_t d = 0; d < spatial; ++d) {
    const std::int64_t least = (input.size(first + static_cast<std::int64_t>(d)) - 1) * t.stride[d] -
                               2 * t.padding[d] + t.dilation[d] * (kernel[d] - 1) + 1;
    const std::int64_t most = least + t.stride[d] - 1;
    if (want[d] < least || want[d] > most)
      throw ShapeError(kiln::detail::cat("[", op, "] requested an output size of ", IntArrayRef(want),
                                         ", but valid sizes of dim ", d, " range from ", least, " to ", most,
                                         " (for an input of ", input.sizes(), ")"));
    padding[d] = want[d] - least;
  }
  return padding;
}

// The geometry of a module's or a functional call's options.
template <class Options>
Transposed geometry(const Options& o) {
  return {o.stride().vec(), o.padding().vec(), o.output_padding().vec(), o.dilation().vec(), o.groups()};
}

Transposed geometry(std::size_t spatial, IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                    std::int64_t groups, IntArrayRef dilation, const char* op) {
  return {detail::per_dim(stride, spatial, {}, "stride", op), detail::per_dim(padding, spatial, {}, "padding", op),
          detail::per_dim(output_padding, spatial, {}, "output_padding", op), detail::per_dim(dilation, spatial, {}, "dilation", op),
          groups};
}

}  // namespace

namespace functional {
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const ConvTranspose1dFuncOptions& o) {
  return convolve_transposed(input, weight, o.bias(), geometry(o), 1, "conv_transpose1d");
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTranspose2dFuncOptions& o) {
  return convolve_transposed(input, weight, o.bias(), geometry(o), 2, "conv_transpose2d");
}
}  // namespace functional

template <std::size_t D>
ConvTransposeNdImpl<D>::ConvTransposeNdImpl(const ConvTransposeOptions<D>& options_)
    : Module(D == 1 ? "kiln::nn::ConvTranspose1d" : "kiln::nn::ConvTranspose2d"), options(options_) {
  const char* op = D == 1 ? "nn::ConvTranspose1d" : "nn::ConvTranspose2d";
  weight = register_parameter("weight", kiln::empty(detail::conv_weight_shape<D>(options, true, op)));
  bias = options.bias() ? register_parameter("bias", empty({options.out_channels()}))
                        : register_parameter("bias", Tensor(), false);
  reset_parameters();
}

template <std::size_t D>
void ConvTransposeNdImpl<D>::reset_parameters() {
  detail::reset_conv_parameters(weight, bias);
}

template <std::size_t D>
Tensor ConvTransposeNdImpl<D>::forward(const Tensor& input, const std::optional<std::vector<std::int64_t>>& output_size) {
  const char* op = D == 1 ? "nn::ConvTranspose1d" : "nn::ConvTranspose2d";
  detail::check_conv_input(input, D, options.in_channels(), op);
  Transposed t = geometry(options);
  if (output_size) t.output_padding = padding_for(input, *output_size, t, options.kernel_size().vec(), op);
  return convolve_transposed(input, weight, bias, t, D, op);
}

template <std::size_t D>
void ConvTransposeNdImpl<D>::pretty_print(std::ostream& stream) const {
  detail::print_conv<D>(stream, name(), options);
}

template class ConvTransposeNdImpl<1>;
template class ConvTransposeNdImpl<2>;

}  // namespace kiln::nn

namespace kiln {

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, std::int64_t groups, IntArrayRef dilation) {
  return nn::convolve_transposed(
      input, weight, bias, nn::geometry(1, stride, padding, output_padding, groups, dilation, "conv_transpose1d"), 1,
      "conv_transpose1d");
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, std::int64_t groups, IntArrayRef dilation) {
  return nn::convolve_transposed(
      input, weight, bias, nn::geometry(2, stride, padding, output_padding, groups, dilation, "conv_transpose2d"), 2,
      "conv_transpose2d");
}

}  // namespace kiln

// Convolution lowered to one GEMM over the input's windows as columns
// (im2col, frontend/window.h): gradients come from im2col's (col2im) and
// matmul's.
#include <kiln/nn/conv.h>

#include <ostream>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

#include "frontend/nn/conv_common.h"
#include "frontend/nn/windows.h"
#include "frontend/window.h"

namespace kiln::nn {
namespace {

// [N, C, *spatial] (or unbatched [C, *spatial]) x [O, C/groups, *kernel].
Tensor convolve(const Tensor& input, const Tensor& weight, const Tensor& bias, std::vector<std::int64_t> stride,
                std::vector<std::int64_t> padding, std::vector<std::int64_t> dilation, std::int64_t groups,
                std::size_t spatial, const char* op) {
  const auto s = static_cast<std::int64_t>(spatial);
  if (!input.defined() || !weight.defined()) throw ValueError(kiln::detail::cat("[", op, "] undefined input or weight"));
  if (input.dim() == s + 1) {  // unbatched
    return convolve(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups, spatial, op).squeeze(0);
  }
  if (input.dim() != s + 2 || weight.dim() != s + 2)
    throw ShapeError(kiln::detail::cat("[", op, "] expected a ", s + 1, "-d (unbatched) or ", s + 2,
                                       "-d (batched) input and a ", s + 2, "-d weight, got input ", input.sizes(),
                                       " and weight ", weight.sizes()));
  const std::int64_t n = input.size(0), c = input.size(1), o = weight.size(0);
  if (groups < 1 || o % groups != 0 || weight.size(1) * groups != c)
    throw ShapeError(kiln::detail::cat("[", op, "] input ", input.sizes(), " has ", c, " channels; weight ",
                                       weight.sizes(), " with groups=", groups, " expects ", weight.size(1) * groups,
                                       " (and out channels divisible by groups)"));
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != o))
    throw ShapeError(kiln::detail::cat("[", op, "] bias ", bias.sizes(), " must have one element per out channel (",
                                       o, ")"));
  detail::WindowGeometry g;
  for (std::int64_t i = 0; i < s; ++i) g.kernel.push_back(weight.size(2 + i));
  g.stride = std::move(stride);
  g.padding = std::move(padding);
  g.dilation = std::move(dilation);
  const std::vector<std::int64_t> out = detail::output_sizes(input, g, op);
  const trace::Window2d window = detail::window_2d(g, true);  // 1-d: a 2-d convolution of height 1
  const std::int64_t k = window.kernel_numel();
  std::int64_t l = 1;
  for (std::int64_t v : out) l *= v;
  // [N, C x K, L] -> [N, groups, C/groups x K, L] against [groups, O/groups, C/groups x K].
  const Tensor patches =
      frontend::im2col(s == 1 ? input.unsqueeze(2) : input, window, op).reshape({n, groups, c / groups * k, l});
  Tensor y = detail::grouped_product(weight.reshape({groups, o / groups, c / groups * k}), patches);
  std::vector<std::int64_t> shape = {n, o};
  shape.insert(shape.end(), out.begin(), out.end());
  return detail::add_channel_bias(y.reshape(shape), bias);
}

}  // namespace

namespace functional {
Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& o) {
  return convolve(input, weight, o.bias(), o.stride().vec(), o.padding().vec(), o.dilation().vec(), o.groups(), 1,
                  "conv1d");
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& o) {
  return convolve(input, weight, o.bias(), o.stride().vec(), o.padding().vec(), o.dilation().vec(), o.groups(), 2,
                  "conv2d");
}
}  // namespace functional

template <std::size_t D>
ConvNdImpl<D>::ConvNdImpl(const ConvOptions<D>& options_)
    : Module(D == 1 ? "kiln::nn::Conv1d" : "kiln::nn::Conv2d"), options(options_) {
  const char* op = D == 1 ? "nn::Conv1d" : "nn::Conv2d";
  weight = register_parameter("weight", kiln::empty(detail::conv_weight_shape<D>(options, false, op)));
  bias = options.bias() ? register_parameter("bias", empty({options.out_channels()}))
                        : register_parameter("bias", Tensor(), false);
  reset_parameters();
}

template <std::size_t D>
void ConvNdImpl<D>::reset_parameters() {
  detail::reset_conv_parameters(weight, bias);
}

template <std::size_t D>
Tensor ConvNdImpl<D>::forward(const Tensor& input) {
  const char* op = D == 1 ? "nn::Conv1d" : "nn::Conv2d";
  detail::check_conv_input(input, D, options.in_channels(), op);
  return convolve(input, weight, bias, options.stride().vec(), options.padding().vec(), options.dilation().vec(),
                  options.groups(), D, op);
}

template <std::size_t D>
void ConvNdImpl<D>::pretty_print(std::ostream& stream) const {
  detail::print_conv<D>(stream, name(), options);
}

template class ConvNdImpl<1>;
template class ConvNdImpl<2>;

}  // namespace kiln::nn

namespace kiln {

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, std::int64_t groups) {
  return nn::convolve(input, weight, bias, nn::detail::per_dim(stride, 1, {}, "stride", "conv1d"),
                      nn::detail::per_dim(padding, 1, {}, "padding", "conv1d"), nn::detail::per_dim(dilation, 1, {}, "dilation", "conv1d"),
                      groups, 1, "conv1d");
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, std::int64_t groups) {
  return nn::convolve(input, weight, bias, nn::detail::per_dim(stride, 2, {}, "stride", "conv2d"),
                      nn::detail::per_dim(padding, 2, {}, "padding", "conv2d"), nn::detail::per_dim(dilation, 2, {}, "dilation", "conv2d"),
                      groups, 2, "conv2d");
}

}  // namespace kiln

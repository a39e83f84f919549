// What convolutions and transposed convolutions share: the grouped product,
// the bias add, the parameters' checks and initialization, and LibTorch's
// printed form.
#pragma once

#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <kiln/error.h>
#include <kiln/frontend/functions.h>
#include <kiln/nn/expanding_array.h>
#include <kiln/nn/init.h>

namespace kiln::nn::detail {

/// w [groups, M, K] x x [N, groups, K, L] -> [N, groups, M, L], the product
/// at the heart of a convolution (w: the weight) and of a transposed one.
/// The weight is broadcast over the batch, so each sample's product would
/// pack it anew; when those packs copy more than moving the batch into the
/// columns does (x's copy and the result's, L x (K + M) against M x K per
/// sample), it is one product per group over N x L columns (perf, DCGAN's
/// 4x4 layers: packing was 28% of a step).
inline Tensor grouped_product(const Tensor& w, const Tensor& x) {
  const std::int64_t n = x.size(0), g = x.size(1), k = x.size(2), l = x.size(3), m = w.size(1);
  if (n < 2 || l * (k + m) >= m * k) return matmul(w, x);
  const Tensor columns = x.permute({1, 2, 0, 3}).reshape({g, k, n * l});
  return matmul(w, columns).reshape({g, m, n, l}).permute({2, 0, 1, 3});
}

/// `y` [N, O, *spatial] plus `bias` [O] (when defined) along its channels.
inline Tensor add_channel_bias(const Tensor& y, const Tensor& bias) {
  if (!bias.defined()) return y;
  std::vector<std::int64_t> shape(static_cast<std::size_t>(y.dim() - 1), 1);
  shape[0] = bias.size(0);
  return y + bias.reshape(shape);
}

/// The weight's shape, [out, in/groups, *kernel] ([in, out/groups, *kernel]
/// when `transposed`); ValueError naming `op` unless the channels are
/// positive and divisible by groups and the kernel sizes positive.
template <std::size_t D, class Options>
std::vector<std::int64_t> conv_weight_shape(const Options& o, bool transposed, const char* op) {
  const std::int64_t g = o.groups();
  if (o.in_channels() < 1 || o.out_channels() < 1 || g < 1 || o.in_channels() % g != 0 || o.out_channels() % g != 0)
    throw ValueError(kiln::detail::cat("[", op, "] in_channels (", o.in_channels(), ") and out_channels (",
                                       o.out_channels(), ") must be positive and divisible by groups (", g, ")"));
  std::vector<std::int64_t> shape = transposed ? std::vector<std::int64_t>{o.in_channels(), o.out_channels() / g}
                                               : std::vector<std::int64_t>{o.out_channels(), o.in_channels() / g};
  for (std::size_t i = 0; i < D; ++i) {
    if (o.kernel_size()[i] < 1)
      throw ValueError(kiln::detail::cat("[", op, "] kernel_size must be positive, got ", o.kernel_size()));
    shape.push_back(o.kernel_size()[i]);
  }
  return shape;
}

/// A layer's input: [N, in_channels, *spatial] or unbatched [in_channels,
/// *spatial]; ShapeError naming `op` otherwise.
inline void check_conv_input(const Tensor& input, std::size_t spatial, std::int64_t in_channels, const char* op) {
  const auto rank = static_cast<std::int64_t>(spatial);
  if (!input.defined() || (input.dim() != rank + 1 && input.dim() != rank + 2))
    throw ShapeError(kiln::detail::cat("[", op, "] expected a ", rank + 1, "-d (unbatched) or ", rank + 2,
                                       "-d (batched) input, got ", input.defined() ? input.sizes() : IntArrayRef{}));
  const std::int64_t channels = input.size(input.dim() == rank + 2 ? 1 : 0);
  if (channels != in_channels)
    throw ShapeError(kiln::detail::cat("[", op, "] expected input ", input.sizes(), " to have ", in_channels,
                                       " channels, but got ", channels, " channels instead"));
}

/// LibTorch's _ConvNd::reset_parameters: Kaiming-uniform with a = sqrt(5)
/// over the weight's fan in, the bias uniform in +-1/sqrt(fan in).
inline void reset_conv_parameters(const Tensor& weight, const Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const double fan_in = static_cast<double>(init::calculate_fan_in_and_fan_out(weight).first);
    const double bound = fan_in > 0 ? 1 / std::sqrt(fan_in) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

/// "<name>(in, out, kernel_size=[..], stride=[..]" and the options that
/// differ from their defaults, as LibTorch prints a convolution.
template <std::size_t D, class Options>
void print_conv(std::ostream& stream, const std::string& name, const Options& o) {
  stream << name << "(" << o.in_channels() << ", " << o.out_channels() << ", kernel_size=" << o.kernel_size()
         << ", stride=" << o.stride();
  if (!(o.padding() == ExpandingArray<D>(0))) stream << ", padding=" << o.padding();
  if (!(o.dilation() == ExpandingArray<D>(1))) stream << ", dilation=" << o.dilation();
  if constexpr (requires { o.output_padding(); })
    if (!(o.output_padding() == ExpandingArray<D>(0))) stream << ", output_padding=" << o.output_padding();
  if (o.groups() != 1) stream << ", groups=" << o.groups();
  if (!o.bias()) stream << ", bias=false";
  stream << ")";
}

}  // namespace kiln::nn::detail

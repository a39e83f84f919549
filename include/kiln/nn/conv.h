// Convolutions, as LibTorch's torch::nn::Conv1d / Conv2d, their functional
// forms and the free functions kiln::conv1d / conv2d. A convolution is one
// GEMM over patches of its input: its windows as columns (unfold, one
// im2col op), [N, groups, C/groups x K, L], multiplied by the weight as
// [groups, O/groups, C/groups x K]; the bias add and what follows fuse like
// a matmul's epilogue.
#pragma once

#include <cstdint>
#include <iosfwd>

#include <kiln/nn/expanding_array.h>
#include <kiln/nn/module.h>
#include <kiln/nn/options.h>

namespace kiln::nn {

template <std::size_t D>
struct ConvOptions {
  ConvOptions(std::int64_t in_channels, std::int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  KILN_ARG(std::int64_t, in_channels);
  KILN_ARG(std::int64_t, out_channels);
  KILN_ARG(ExpandingArray<D>, kernel_size);
  KILN_ARG(ExpandingArray<D>, stride) = 1;
  /// Zeros added on both sides of each spatial dim.
  KILN_ARG(ExpandingArray<D>, padding) = 0;
  KILN_ARG(ExpandingArray<D>, dilation) = 1;
  /// Channels split into this many independent convolutions.
  KILN_ARG(std::int64_t, groups) = 1;
  KILN_ARG(bool, bias) = true;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;

namespace functional {

template <std::size_t D>
struct ConvFuncOptions {
  /// [out_channels]; undefined: no bias.
  KILN_ARG(Tensor, bias) = {};
  KILN_ARG(ExpandingArray<D>, stride) = 1;
  KILN_ARG(ExpandingArray<D>, padding) = 0;
  KILN_ARG(ExpandingArray<D>, dilation) = 1;
  KILN_ARG(std::int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;

/// input [N, C, L] (or unbatched [C, L]), weight [O, C/groups, K].
Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});
/// input [N, C, H, W] (or unbatched [C, H, W]), weight [O, C/groups, KH, KW].
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});

}  // namespace functional

/// Conv1d / Conv2d: weight [out, in/groups, *kernel], bias [out], both
/// initialized as LibTorch does (Kaiming-uniform with a = sqrt(5); bias
/// uniform in +-1/sqrt(fan_in)).
template <std::size_t D>
class ConvNdImpl : public Module {
 public:
  explicit ConvNdImpl(const ConvOptions<D>& options);
  ConvNdImpl(std::int64_t in_channels, std::int64_t out_channels, ExpandingArray<D> kernel_size)
      : ConvNdImpl(ConvOptions<D>(in_channels, out_channels, kernel_size)) {}

  /// ShapeError naming the layer when the input's rank or channels differ.
  Tensor forward(const Tensor& input);
  void reset_parameters();
  /// "kiln::nn::Conv2d(1, 10, kernel_size=[5, 5], stride=[1, 1])", with the
  /// options that differ from their defaults, as LibTorch prints.
  void pretty_print(std::ostream& stream) const override;

  ConvOptions<D> options;
  Tensor weight;
  Tensor bias;
};

class Conv1dImpl : public ConvNdImpl<1> {
 public:
  using ConvNdImpl<1>::ConvNdImpl;
};
class Conv2dImpl : public ConvNdImpl<2> {
 public:
  using ConvNdImpl<2>::ConvNdImpl;
};
KILN_MODULE(Conv1d);
KILN_MODULE(Conv2d);

}  // namespace kiln::nn

namespace kiln {

/// LibTorch's free functions (ATen's argument order); a one-element stride,
/// padding or dilation applies to every spatial dim.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
              IntArrayRef padding = 0, IntArrayRef dilation = 1, std::int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
              IntArrayRef padding = 0, IntArrayRef dilation = 1, std::int64_t groups = 1);

}  // namespace kiln

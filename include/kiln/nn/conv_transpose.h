// Transposed convolutions, as LibTorch's torch::nn::ConvTranspose1d /
// ConvTranspose2d, their functional forms and the free functions
// kiln::conv_transpose1d / conv_transpose2d: the adjoint of a convolution
// (its gradient with respect to the input), as upsampling generators use it.
// One GEMM spreads each input position over a kernel-sized window of
// columns, [groups, O/groups x K, C/groups] x [N, groups, C/groups, L], and
// one Col2im op sums the overlapping windows into the output; the
// gradients come from those two ops'.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <vector>

#include <kiln/nn/expanding_array.h>
#include <kiln/nn/module.h>
#include <kiln/nn/options.h>

namespace kiln::nn {

template <std::size_t D>
struct ConvTransposeOptions {
  ConvTransposeOptions(std::int64_t in_channels, std::int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  KILN_ARG(std::int64_t, in_channels);
  KILN_ARG(std::int64_t, out_channels);
  KILN_ARG(ExpandingArray<D>, kernel_size);
  KILN_ARG(ExpandingArray<D>, stride) = 1;
  /// dilation * (kernel_size - 1) - padding zeros are added on both sides of
  /// the input (so that it inverts a convolution with this padding).
  KILN_ARG(ExpandingArray<D>, padding) = 0;
  /// Extra size on one side of each output dim; smaller than stride or dilation.
  KILN_ARG(ExpandingArray<D>, output_padding) = 0;
  KILN_ARG(std::int64_t, groups) = 1;
  KILN_ARG(bool, bias) = true;
  KILN_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;

namespace functional {

template <std::size_t D>
struct ConvTransposeFuncOptions {
  /// [out_channels]; undefined: no bias.
  KILN_ARG(Tensor, bias) = {};
  KILN_ARG(ExpandingArray<D>, stride) = 1;
  KILN_ARG(ExpandingArray<D>, padding) = 0;
  KILN_ARG(ExpandingArray<D>, output_padding) = 0;
  KILN_ARG(std::int64_t, groups) = 1;
  KILN_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;

/// input [N, C, L] (or unbatched [C, L]), weight [C, O/groups, K].
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const ConvTranspose1dFuncOptions& options = {});
/// input [N, C, H, W] (or unbatched [C, H, W]), weight [C, O/groups, KH, KW].
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTranspose2dFuncOptions& options = {});

}  // namespace functional

/// ConvTranspose1d / ConvTranspose2d: weight [in, out/groups, *kernel],
/// bias [out], initialized as LibTorch does (Kaiming-uniform with
/// a = sqrt(5) over the weight's fan in, out/groups x kernel; bias uniform
/// in +-1/sqrt(that fan in)).
template <std::size_t D>
class ConvTransposeNdImpl : public Module {
 public:
  explicit ConvTransposeNdImpl(const ConvTransposeOptions<D>& options);
  ConvTransposeNdImpl(std::int64_t in_channels, std::int64_t out_channels, ExpandingArray<D> kernel_size)
      : ConvTransposeNdImpl(ConvTransposeOptions<D>(in_channels, out_channels, kernel_size)) {}

  /// `output_size` (the spatial sizes, or with the batch and channel dims)
  /// picks the output padding that gives it, as in LibTorch: a stride above
  /// 1 maps several output sizes to one input size. ShapeError naming the
  /// layer when the input's rank or channels differ, or no padding gives
  /// output_size.
  Tensor forward(const Tensor& input, const std::optional<std::vector<std::int64_t>>& output_size = std::nullopt);
  void reset_parameters();
  /// "kiln::nn::ConvTranspose2d(100, 256, kernel_size=[4, 4], stride=[1, 1], bias=false)",
  /// with the options that differ from their defaults, as LibTorch prints.
  void pretty_print(std::ostream& stream) const override;

  ConvTransposeOptions<D> options;
  Tensor weight;
  Tensor bias;
};

class ConvTranspose1dImpl : public ConvTransposeNdImpl<1> {
 public:
  using ConvTransposeNdImpl<1>::ConvTransposeNdImpl;
};
class ConvTranspose2dImpl : public ConvTransposeNdImpl<2> {
 public:
  using ConvTransposeNdImpl<2>::ConvTransposeNdImpl;
};
KILN_MODULE(ConvTranspose1d);
KILN_MODULE(ConvTranspose2d);

}  // namespace kiln::nn

namespace kiln {

/// LibTorch's free functions (ATen's argument order); a one-element stride,
/// padding, output padding or dilation applies to every spatial dim.
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
                        IntArrayRef padding = 0, IntArrayRef output_padding = 0, std::int64_t groups = 1,
                        IntArrayRef dilation = 1);
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
                        IntArrayRef padding = 0, IntArrayRef output_padding = 0, std::int64_t groups = 1,
                        IntArrayRef dilation = 1);

}  // namespace kiln

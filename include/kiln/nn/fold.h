// Sliding windows as columns and back, as LibTorch's torch::nn::Unfold /
// Fold and torch::nn::functional::unfold / fold (im2col / col2im):
//   unfold: [N, C, H, W] -> [N, C*kh*kw, L], one column per window position
//           (L of them), zeros where a window reaches into the padding;
//   fold:   [N, C*kh*kw, L] -> [N, C, output_size], the columns summed back
//           into place (overlapping windows add up).
// Each is the other's adjoint, so each one's gradient is the other
// (Im2ColBackward0, Col2ImBackward0). Convolution is unfold and one GEMM.
#pragma once

#include <cstdint>
#include <iosfwd>

#include <kiln/frontend/tensor.h>
#include <kiln/nn/expanding_array.h>
#include <kiln/nn/module.h>
#include <kiln/nn/options.h>

namespace kiln::nn {

struct UnfoldOptions {
  UnfoldOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size) {}
  KILN_ARG(ExpandingArray<2>, kernel_size);
  KILN_ARG(ExpandingArray<2>, dilation) = 1;
  /// Zeros added on both sides of each spatial dim.
  KILN_ARG(ExpandingArray<2>, padding) = 0;
  KILN_ARG(ExpandingArray<2>, stride) = 1;
};

struct FoldOptions {
  FoldOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  /// The spatial size of the result, [H, W].
  KILN_ARG(ExpandingArray<2>, output_size);
  KILN_ARG(ExpandingArray<2>, kernel_size);
  KILN_ARG(ExpandingArray<2>, dilation) = 1;
  KILN_ARG(ExpandingArray<2>, padding) = 0;
  KILN_ARG(ExpandingArray<2>, stride) = 1;
};

namespace functional {

using UnfoldFuncOptions = UnfoldOptions;
using FoldFuncOptions = FoldOptions;

/// input [N, C, H, W] (or unbatched [C, H, W]) -> [N, C*kh*kw, L] ([C*kh*kw, L]).
/// ShapeError naming the input's shape when no window fits; ValueError for a
/// kernel, stride or dilation below 1, a negative padding, or any above 65535.
Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);
/// input [N, C*kh*kw, L] (or unbatched [C*kh*kw, L]) -> [N, C, *output_size];
/// ShapeError naming the input's shape unless L is the number of windows of
/// output_size and its second dim a multiple of kh*kw.
Tensor fold(const Tensor& input, const FoldFuncOptions& options);

}  // namespace functional

/// functional::unfold with its options. Prints
/// "kiln::nn::Unfold(kernel_size=[2, 3], dilation=[1, 1], padding=[0, 0], stride=[1, 1])".
class UnfoldImpl : public Module {
 public:
  explicit UnfoldImpl(const UnfoldOptions& options);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  UnfoldOptions options;
};
KILN_MODULE(Unfold);

/// functional::fold with its options. Prints "kiln::nn::Fold(output_size=[4, 5],
/// kernel_size=[2, 2], dilation=[1, 1], padding=[0, 0], stride=[1, 1])".
class FoldImpl : public Module {
 public:
  explicit FoldImpl(const FoldOptions& options);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  FoldOptions options;
};
KILN_MODULE(Fold);

}  // namespace kiln::nn

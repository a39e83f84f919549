// Layer normalization, as LibTorch's torch::nn::LayerNorm, its functional
// form nn::functional::layer_norm and the free function kiln::layer_norm.
// The statistics are taken over the trailing `normalized_shape` dims of each
// example: y = (x - mean) / sqrt(var + eps) * weight + bias, with the biased
// variance (divided by the element count), as LibTorch. Built from kiln's
// reductions and elementwise ops, so the gradient comes from theirs.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <utility>
#include <vector>

#include <kiln/nn/module.h>
#include <kiln/nn/options.h>

namespace kiln {

/// LibTorch's torch::layer_norm: normalizes `input` over its last
/// normalized_shape.size() dims, which must equal `normalized_shape`
/// (ShapeError otherwise); `weight` and `bias` (shape normalized_shape) are
/// optional. `cudnn_enable` is accepted for LibTorch's signature and ignored.
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5, bool cudnn_enable = true);

}  // namespace kiln

namespace kiln::nn {

struct LayerNormOptions {
  LayerNormOptions(std::vector<std::int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}
  /// The trailing shape of the input that is normalized.
  KILN_ARG(std::vector<std::int64_t>, normalized_shape);
  /// Added to the variance before the square root.
  KILN_ARG(double, eps) = 1e-5;
  /// Learn a weight (ones) and a bias (zeros) of shape normalized_shape.
  KILN_ARG(bool, elementwise_affine) = true;
};

namespace functional {

struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<std::int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}
  KILN_ARG(std::vector<std::int64_t>, normalized_shape);
  /// Optional, of shape normalized_shape.
  KILN_ARG(Tensor, weight) = {};
  KILN_ARG(Tensor, bias) = {};
  KILN_ARG(double, eps) = 1e-5;
};

/// LibTorch's F::layer_norm: kiln::layer_norm with the options' arguments.
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);

}  // namespace functional

class LayerNormImpl : public Module {
 public:
  LayerNormImpl(std::vector<std::int64_t> normalized_shape)
      : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  explicit LayerNormImpl(const LayerNormOptions& options);

  /// [*, normalized_shape] -> the same shape, normalized over normalized_shape.
  Tensor forward(const Tensor& input);
  /// Weight back to ones and bias to zeros (with elementwise_affine).
  void reset_parameters();
  /// "kiln::nn::LayerNorm([10], eps=1e-05, elementwise_affine=true)", LibTorch's layout.
  void pretty_print(std::ostream& stream) const override;

  LayerNormOptions options;
  Tensor weight;  // normalized_shape; undefined without elementwise_affine
  Tensor bias;    // normalized_shape; undefined without elementwise_affine
};

KILN_MODULE(LayerNorm);

}  // namespace kiln::nn

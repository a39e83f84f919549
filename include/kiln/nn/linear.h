// kiln::nn::Linear: y = x W^T + b, LibTorch's torch::nn::Linear, with its
// initialization (Kaiming-uniform weight, uniform bias in +-1/sqrt(in)).
#pragma once

#include <cstdint>
#include <iosfwd>

#include <kiln/nn/module.h>
#include <kiln/nn/options.h>

namespace kiln::nn {

struct LinearOptions {
  LinearOptions(std::int64_t in_features, std::int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  KILN_ARG(std::int64_t, in_features);
  KILN_ARG(std::int64_t, out_features);
  KILN_ARG(bool, bias) = true;
};

class LinearImpl : public Module {
 public:
  LinearImpl(std::int64_t in_features, std::int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);

  /// [..., in_features] -> [..., out_features]; ShapeError naming the layer otherwise.
  Tensor forward(const Tensor& input);
  /// Draws the parameters again (LibTorch's reset_parameters).
  void reset_parameters();
  /// "kiln::nn::Linear(in_features=784, out_features=10, bias=true)".
  void pretty_print(std::ostream& stream) const override;

  LinearOptions options;
  Tensor weight;  // [out_features, in_features]
  Tensor bias;    // [out_features], undefined without bias
};

KILN_MODULE(Linear);

}  // namespace kiln::nn

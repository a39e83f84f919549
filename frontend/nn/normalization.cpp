// Layer normalization: kiln::layer_norm, nn::functional::layer_norm and nn::LayerNorm.
#include <kiln/nn/normalization.h>

#include <ostream>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>
#include <kiln/nn/init.h>

namespace kiln {

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps, bool) {
  if (!input.defined()) throw ValueError("[layer_norm] called with an undefined input");
  const auto k = static_cast<std::int64_t>(normalized_shape.size());
  if (k == 0)
    throw ValueError("[layer_norm] expected normalized_shape to contain at least one element, got []");
  const IntArrayRef sizes = input.sizes();
  const std::int64_t first = input.dim() - k;
  if (first < 0 || !(IntArrayRef(sizes.data() + first, static_cast<std::size_t>(k)) == normalized_shape))
    throw ShapeError(kiln::detail::cat("[layer_norm] given normalized_shape=", normalized_shape,
                                       ", expected an input whose trailing dims are ", normalized_shape,
                                       ", but got input of size ", sizes));
  for (const Tensor* affine : {&weight, &bias})
    if (affine->defined() && !(affine->sizes() == normalized_shape))
      throw ShapeError(kiln::detail::cat("[layer_norm] expected ", affine == &weight ? "weight" : "bias",
                                         " of shape normalized_shape=", normalized_shape, ", got ", affine->sizes()));
  std::vector<std::int64_t> dims;
  for (std::int64_t d = first; d < input.dim(); ++d) dims.push_back(d);
  const Tensor centered = input - input.mean(dims, true);
  Tensor out = centered * ((centered * centered).mean(dims, true) + eps).rsqrt();
  if (weight.defined()) out = out * weight;
  if (bias.defined()) out = out + bias;
  return out;
}

}  // namespace kiln

namespace kiln::nn {

namespace functional {
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  return kiln::layer_norm(input, options.normalized_shape(), options.weight(), options.bias(), options.eps());
}
}  // namespace functional

LayerNormImpl::LayerNormImpl(const LayerNormOptions& options_) : Module("kiln::nn::LayerNorm"), options(options_) {
  for (std::int64_t size : options.normalized_shape())
    if (size < 0)
      throw ValueError(kiln::detail::cat("[nn::LayerNorm] normalized_shape must be non-negative, got ",
                                         IntArrayRef(options.normalized_shape())));
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", kiln::empty(options.normalized_shape()));
    bias = register_parameter("bias", kiln::empty(options.normalized_shape()));
  } else {
    weight = register_parameter("weight", Tensor(), false);
    bias = register_parameter("bias", Tensor(), false);
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (!options.elementwise_affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return kiln::layer_norm(input, options.normalized_shape(), weight, bias, options.eps());
}

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << name() << "(" << IntArrayRef(options.normalized_shape()) << ", eps=" << options.eps()
         << ", elementwise_affine=" << (options.elementwise_affine() ? "true" : "false") << ")";
}

}  // namespace kiln::nn

// Layer normalization: kiln::layer_norm, nn::functional::layer_norm and nn::LayerNorm.
#include <kiln/nn/normalization.h>

#include <ostream>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>
#include <kiln/nn/init.h>

#include "frontend/autograd/formulas.h"
#include "frontend/autograd/function_node.h"

namespace kiln {
namespace {

// A direct gradient, as LibTorch's NativeLayerNormBackward0: it saves the
// input and the rows' mean and 1/std, and makes the normalized input again
// in backward. The chain through the primitives saved the centered and the
// normalized input instead, twice the input's bytes: at the peak of the
// residual stack's training step (memory_bench) 7 of its 53.4 MiB.
void record_layer_norm_backward(const std::vector<Tensor>& inputs, Tensor& out, const std::vector<std::int64_t>& dims,
                                IntArrayRef normalized_shape, bool has_weight, bool has_bias, const Tensor& mean,
                                const Tensor& rstd, double eps) {
  std::vector<Tensor> save = inputs;  // the input, and the weight the gradient is scaled by
  save.resize(has_weight ? 2 : 1);
  save.push_back(mean);
  save.push_back(rstd);
  autograd::record_function(
      "NativeLayerNormBackward0", inputs, out,
      [dims, shape = std::vector<std::int64_t>(normalized_shape.begin(), normalized_shape.end()), has_weight, has_bias,
       eps](const Tensor& g, const autograd::variable_list& saved) {
        const Tensor& x = saved[0];
        Tensor mu = saved[saved.size() - 2], inv_std = saved.back();
        if (GradMode::is_enabled()) {
          // create_graph: the statistics again, as functions of the input,
          // so that the gradient can be differentiated through them.
          mu = x.mean(dims, true);
          const Tensor c = x - mu;
          inv_std = ((c * c).mean(dims, true) + eps).rsqrt();
        }
        const Tensor xhat = (x - mu) * inv_std;
        const Tensor gxhat = has_weight ? g * saved[1] : g;
        autograd::variable_list grads{
            inv_std * (gxhat - gxhat.mean(dims, true) - xhat * (gxhat * xhat).mean(dims, true))};
        if (has_weight) grads.push_back(autograd::sum_to(g * xhat, shape));
        if (has_bias) grads.push_back(autograd::sum_to(g, shape));
        return grads;
      },
      save);
}

}  // namespace

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
  std::vector<Tensor> inputs{input};
  if (weight.defined()) inputs.push_back(weight);
  if (bias.defined()) inputs.push_back(bias);
  const bool track = autograd::any_requires_grad(inputs);
  Tensor mean, rstd, out;
  {
    autograd::AutoGradMode mode(!track && GradMode::is_enabled());
    mean = input.mean(dims, true);
    const Tensor centered = input - mean;
    rstd = ((centered * centered).mean(dims, true) + eps).rsqrt();
    out = centered * rstd;
    if (weight.defined()) out = out * weight;
    if (bias.defined()) out = out + bias;
  }
  if (track)
    record_layer_norm_backward(inputs, out, dims, normalized_shape, weight.defined(), bias.defined(), mean, rstd, eps);
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

// Batch normalization: kiln::batch_norm, nn::functional::batch_norm and nn::BatchNorm1d / BatchNorm2d.
#include <kiln/nn/batchnorm.h>

#include <ostream>
#include <string>
#include <vector>

#include <kiln/autograd.h>
#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>
#include <kiln/nn/init.h>

namespace kiln {

namespace {

// In training, each channel's variance needs more than one value (LibTorch's check, before any state changes).
void check_values_per_channel(const Tensor& input, const char* op) {
  if (input.numel() / input.size(1) == 1)
    throw ValueError(kiln::detail::cat("[", op, "] Expected more than 1 value per channel when training, ",
                                       "got input size ", input.sizes()));
}

// The running statistic moves towards the batch's: running = (1 - momentum) * running + momentum * batch.
void update_running(Tensor running, const Tensor& batch, double momentum) {
  running.mul_(1 - momentum).add_(batch.reshape({running.numel()}).to(running.dtype()), momentum);
}

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps, bool) {
  if (!input.defined()) throw ValueError("[batch_norm] called with an undefined input");
  if (input.dim() < 2)
    throw ShapeError(kiln::detail::cat("[batch_norm] expected an input [N, C, *] of at least 2 dims, ",
                                       "got input of size ", input.sizes()));
  const std::int64_t channels = input.size(1);
  const std::pair<const char*, const Tensor*> per_channel[] = {
      {"weight", &weight}, {"bias", &bias}, {"running_mean", &running_mean}, {"running_var", &running_var}};
  for (const auto& [what, t] : per_channel)
    if (t->defined() && !(t->sizes() == IntArrayRef{channels}))
      throw ShapeError(kiln::detail::cat("[batch_norm] expected ", what, " of shape [", channels,
                                         "] for input of size ", input.sizes(), ", got ", t->sizes()));
  std::vector<std::int64_t> dims = {0}, shape(static_cast<std::size_t>(input.dim()), 1);
  for (std::int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  shape[1] = channels;

  Tensor out;
  if (training) {
    const Tensor mean = input.mean(dims, true);
    const Tensor centered = input - mean;
    const Tensor var = (centered * centered).mean(dims, true);
    out = centered * (var + eps).rsqrt();
    NoGradGuard no_grad;
    if (running_mean.defined()) update_running(running_mean, mean.detach(), momentum);
    if (running_var.defined()) {
      const double n = static_cast<double>(input.numel() / channels);
      update_running(running_var, var.detach() * (n / (n - 1)), momentum);
    }
  } else {
    if (!running_mean.defined() || !running_var.defined())
      throw ValueError(kiln::detail::cat("[batch_norm] running_mean and running_var must be defined when not training",
                                         " (input of size ", input.sizes(), ")"));
    out = (input - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps).rsqrt();
  }
  if (weight.defined()) out = out * weight.reshape(shape);
  if (bias.defined()) out = out + bias.reshape(shape);
  return out;
}

}  // namespace kiln

namespace kiln::nn {

namespace functional {
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options) {
  if (!input.defined()) throw ValueError("[nn::functional::batch_norm] called with an undefined input");
  if (input.dim() < 2)
    throw ShapeError(kiln::detail::cat("[nn::functional::batch_norm] expected at least 2 input dims, ",
                                       "got input of size ", input.sizes()));
  if (!options.momentum())
    throw ValueError("[nn::functional::batch_norm] momentum must be a number (nullopt is for the modules alone)");
  if (options.training()) check_values_per_channel(input, "nn::functional::batch_norm");
  return kiln::batch_norm(input, options.weight(), options.bias(), running_mean, running_var, options.training(),
                          *options.momentum(), options.eps());
}
}  // namespace functional

namespace {
template <std::size_t D>
std::string layer_name() {
  return D == 1 ? "nn::BatchNorm1d" : "nn::BatchNorm2d";
}
}  // namespace

template <std::size_t D>
BatchNormImplBase<D>::BatchNormImplBase(const BatchNormOptions& options_)
    : Module("kiln::" + layer_name<D>()), options(options_) {
  const std::int64_t c = options.num_features();
  if (c < 1) throw ValueError(kiln::detail::cat("[", layer_name<D>(), "] num_features must be positive, got ", c));
  if (options.affine()) {
    weight = register_parameter("weight", empty({c}));
    bias = register_parameter("bias", empty({c}));
  } else {
    weight = register_parameter("weight", Tensor(), false);
    bias = register_parameter("bias", Tensor(), false);
  }
  if (options.track_running_stats()) {
    running_mean = register_buffer("running_mean", zeros({c}));
    running_var = register_buffer("running_var", ones({c}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, kInt64));
  } else {
    running_mean = register_buffer("running_mean", Tensor());
    running_var = register_buffer("running_var", Tensor());
    num_batches_tracked = register_buffer("num_batches_tracked", Tensor());
  }
  reset_parameters();
}

template <std::size_t D>
void BatchNormImplBase<D>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  init::zeros_(running_mean);
  init::ones_(running_var);
  init::zeros_(num_batches_tracked);
}

template <std::size_t D>
void BatchNormImplBase<D>::reset_parameters() {
  reset_running_stats();
  if (!options.affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

template <std::size_t D>
Tensor BatchNormImplBase<D>::forward(const Tensor& input) {
  const std::string op = layer_name<D>();
  const bool rank_ok = input.defined() && (D == 1 ? input.dim() == 2 || input.dim() == 3 : input.dim() == 4);
  if (!rank_ok)
    throw ShapeError(kiln::detail::cat("[", op, "] expected ", D == 1 ? "2D or 3D" : "4D", " input, got ",
                                       input.defined() ? input.dim() : 0, "D input of size ",
                                       input.defined() ? input.sizes() : IntArrayRef{}));
  if (input.size(1) != options.num_features())
    throw ShapeError(kiln::detail::cat("[", op, "] expected input of size ", input.sizes(), " to have ",
                                       options.num_features(), " channels (num_features) in dim 1, got ",
                                       input.size(1)));
  const bool use_batch_stats = is_training() || !options.track_running_stats();
  if (use_batch_stats) check_values_per_channel(input, op.c_str());
  double factor = options.momentum().value_or(0.0);
  if (is_training() && options.track_running_stats()) {
    {
      NoGradGuard no_grad;
      num_batches_tracked.add_(1);
    }
    if (!options.momentum()) factor = 1.0 / static_cast<double>(num_batches_tracked.item<std::int64_t>());
  }
  return functional::batch_norm(input, running_mean, running_var,
                                functional::BatchNormFuncOptions()
                                    .weight(weight)
                                    .bias(bias)
                                    .training(use_batch_stats)
                                    .momentum(factor)
                                    .eps(options.eps()));
}

template <std::size_t D>
void BatchNormImplBase<D>::pretty_print(std::ostream& stream) const {
  stream << name() << "(" << options.num_features() << ", eps=" << options.eps() << ", momentum=";
  if (options.momentum()) stream << *options.momentum();
  else stream << "None";
  stream << ", affine=" << (options.affine() ? "true" : "false")
         << ", track_running_stats=" << (options.track_running_stats() ? "true" : "false") << ")";
}

template class BatchNormImplBase<1>;
template class BatchNormImplBase<2>;

}  // namespace kiln::nn

// Batch normalization, as LibTorch's torch::nn::BatchNorm1d / BatchNorm2d,
// their functional form nn::functional::batch_norm and the free function
// kiln::batch_norm. Channels are dim 1; the statistics of a channel are taken
// over every other dim. In training the batch's mean and biased variance
// normalize the input, and the running statistics (when given) move towards
// the batch's mean and unbiased variance by `momentum`, in place and outside
// autograd; in eval the running statistics normalize the input.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>

#include <kiln/nn/module.h>
#include <kiln/nn/options.h>

namespace kiln {

/// LibTorch's torch::batch_norm on an input [N, C, *]: weight, bias,
/// running_mean and running_var are optional [C] tensors. In training the
/// running statistics, if defined, are updated in place:
///   running = (1 - momentum) * running + momentum * batch statistic.
/// In eval they must be defined (ValueError otherwise). `cudnn_enabled` is
/// accepted for LibTorch's signature and ignored.
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps, bool cudnn_enabled = true);

}  // namespace kiln

namespace kiln::nn {

struct BatchNormOptions {
  BatchNormOptions(std::int64_t num_features) : num_features_(num_features) {}
  /// C, the size of the input's dim 1.
  KILN_ARG(std::int64_t, num_features);
  /// Added to the variance before the square root.
  KILN_ARG(double, eps) = 1e-5;
  /// The weight of a batch in the running statistics; nullopt: a cumulative
  /// (equal-weight) average over the batches seen since reset_running_stats().
  KILN_ARG(std::optional<double>, momentum) = 0.1;
  /// Learn a weight (ones) and a bias (zeros) per channel.
  KILN_ARG(bool, affine) = true;
  /// Keep running statistics (and use them in eval); without, batch
  /// statistics are used in eval too.
  KILN_ARG(bool, track_running_stats) = true;
};

namespace functional {

struct BatchNormFuncOptions {
  /// Optional [C] tensors.
  KILN_ARG(Tensor, weight) = {};
  KILN_ARG(Tensor, bias) = {};
  /// Batch statistics (and a running-statistics update) rather than the running statistics.
  KILN_ARG(bool, training) = false;
  /// Must be set (LibTorch's functional form has no cumulative average).
  KILN_ARG(std::optional<double>, momentum) = 0.1;
  KILN_ARG(double, eps) = 1e-5;
};

/// LibTorch's F::batch_norm. In training, an input with one value per
/// channel is a ValueError ("Expected more than 1 value per channel when
/// training"); so is a momentum of nullopt.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options = {});

}  // namespace functional

/// What BatchNorm1d and BatchNorm2d share: parameters weight and bias [C]
/// (ones and zeros), buffers running_mean [C] (zeros), running_var [C]
/// (ones) and num_batches_tracked (an int64 scalar, 0), with LibTorch's names.
/// D is the number of spatial dims (1 accepts none as well).
template <std::size_t D>
class BatchNormImplBase : public Module {
 public:
  explicit BatchNormImplBase(const BatchNormOptions& options);

  /// Normalizes with batch statistics in training mode (and without
  /// track_running_stats), else with the running statistics. In training
  /// with track_running_stats, num_batches_tracked grows by one and the
  /// running statistics are updated. ValueError naming the layer and the
  /// shape for a wrong rank or channel count.
  Tensor forward(const Tensor& input);
  /// running_mean to zeros, running_var to ones, num_batches_tracked to 0.
  void reset_running_stats();
  /// reset_running_stats(), then weight to ones and bias to zeros.
  void reset_parameters();
  /// "kiln::nn::BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)",
  /// LibTorch's layout ("momentum=None" for the cumulative average).
  void pretty_print(std::ostream& stream) const override;

  BatchNormOptions options;
  Tensor weight;               // [C]; undefined without affine
  Tensor bias;                 // [C]; undefined without affine
  Tensor running_mean;         // [C]; undefined without track_running_stats
  Tensor running_var;          // [C]; undefined without track_running_stats
  Tensor num_batches_tracked;  // int64 scalar; undefined without track_running_stats
};

/// Over (N, C) or (N, C, L).
class BatchNorm1dImpl : public BatchNormImplBase<1> {
 public:
  using BatchNormImplBase<1>::BatchNormImplBase;
};
/// Over (N, C, H, W).
class BatchNorm2dImpl : public BatchNormImplBase<2> {
 public:
  using BatchNormImplBase<2>::BatchNormImplBase;
};
KILN_MODULE(BatchNorm1d);
KILN_MODULE(BatchNorm2d);

}  // namespace kiln::nn

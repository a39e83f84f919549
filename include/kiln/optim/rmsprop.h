// kiln::optim::RMSprop: LibTorch's torch::optim::RMSprop (a running average
// of squared gradients divides each step; optional momentum, centering and
// L2 weight decay), same update order.
#pragma once

#include <cstdint>

#include <kiln/optim/optimizer.h>

namespace kiln::optim {

/// LibTorch's RMSpropOptions: lr, alpha (smoothing constant of the squared-
/// gradient average), eps (added to the denominator), weight_decay (L2 term
/// added to the gradient), momentum, centered (divide by the estimated
/// variance rather than the uncentered second moment).
struct RMSpropOptions : OptimizerOptions {
  RMSpropOptions(double lr = 1e-2) : lr_(lr) {}
  KILN_OPTIM_ARG(double, lr);
  KILN_OPTIM_ARG(double, alpha) = 0.99;
  KILN_OPTIM_ARG(double, eps) = 1e-8;
  KILN_OPTIM_ARG(double, weight_decay) = 0;
  KILN_OPTIM_ARG(double, momentum) = 0;
  KILN_OPTIM_ARG(bool, centered) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<RMSpropOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  void serialize(serialize::OutputArchive& archive) const override;
  void serialize(serialize::InputArchive& archive) override;
};

/// LibTorch's RMSpropParamState: the step count, the squared-gradient average,
/// the momentum buffer (with momentum > 0) and the gradient average (centered).
struct RMSpropParamState : OptimizerParamState {
  KILN_ARG(std::int64_t, step) = 0;
  KILN_ARG(Tensor, square_avg);
  KILN_ARG(Tensor, momentum_buffer) = {};
  KILN_ARG(Tensor, grad_avg) = {};

 public:
  void serialize(serialize::OutputArchive& archive) const override;
  void serialize(serialize::InputArchive& archive) override;
};

class RMSprop : public Optimizer {
 public:
  /// ValueError for a negative learning rate, eps, momentum, weight decay or alpha.
  RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {});
  RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace kiln::optim

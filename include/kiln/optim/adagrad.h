// kiln::optim::Adagrad: LibTorch's torch::optim::Adagrad (each step divided
// by the root of the running sum of squared gradients; learning-rate decay
// and L2 weight decay), same update order.
#pragma once

#include <cstdint>

#include <kiln/optim/optimizer.h>

namespace kiln::optim {

/// LibTorch's AdagradOptions: lr, lr_decay (step t uses lr / (1 + (t - 1) *
/// lr_decay)), weight_decay (L2 term added to the gradient),
/// initial_accumulator_value (the sum's starting value), eps.
struct AdagradOptions : OptimizerOptions {
  AdagradOptions(double lr = 1e-2) : lr_(lr) {}
  KILN_OPTIM_ARG(double, lr);
  KILN_OPTIM_ARG(double, lr_decay) = 0;
  KILN_OPTIM_ARG(double, weight_decay) = 0;
  KILN_OPTIM_ARG(double, initial_accumulator_value) = 0;
  KILN_OPTIM_ARG(double, eps) = 1e-10;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdagradOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  void serialize(serialize::OutputArchive& archive) const override;
  void serialize(serialize::InputArchive& archive) override;
};

/// LibTorch's AdagradParamState: the step count and the sum of squared gradients.
struct AdagradParamState : OptimizerParamState {
  KILN_ARG(std::int64_t, step) = 0;
  KILN_ARG(Tensor, sum);

 public:
  void serialize(serialize::OutputArchive& archive) const override;
  void serialize(serialize::InputArchive& archive) override;
};

class Adagrad : public Optimizer {
 public:
  /// ValueError for a negative learning rate, lr_decay, weight decay, initial
  /// accumulator value or eps. As LibTorch, every parameter's state (step 0,
  /// sum filled with initial_accumulator_value) is made here.
  Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {});
  Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace kiln::optim

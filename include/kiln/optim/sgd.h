// kiln::optim::SGD: LibTorch's torch::optim::SGD (momentum, dampening,
// Nesterov, weight decay), same update order.
#pragma once

#include <kiln/optim/optimizer.h>

namespace kiln::optim {

struct SGDOptions : OptimizerOptions {
  SGDOptions(double lr) : lr_(lr) {}
  KILN_OPTIM_ARG(double, lr);
  KILN_OPTIM_ARG(double, momentum) = 0;
  KILN_OPTIM_ARG(double, dampening) = 0;
  KILN_OPTIM_ARG(double, weight_decay) = 0;
  KILN_OPTIM_ARG(bool, nesterov) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<SGDOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  void serialize(serialize::OutputArchive& archive) const override;
  void serialize(serialize::InputArchive& archive) override;
};

struct SGDParamState : OptimizerParamState {
  KILN_ARG(Tensor, momentum_buffer);

 public:
  void serialize(serialize::OutputArchive& archive) const override;
  void serialize(serialize::InputArchive& archive) override;
};

class SGD : public Optimizer {
 public:
  /// ValueError for a negative learning rate, momentum or weight decay, or
  /// Nesterov without momentum or with dampening.
  SGD(std::vector<Tensor> params, SGDOptions defaults);
  SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults);
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace kiln::optim

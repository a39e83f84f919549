// kiln::optim::Adam and AdamW: LibTorch's torch::optim::Adam (L2 weight
// decay added to the gradient, amsgrad) and AdamW (decoupled weight decay).
#pragma once

#include <tuple>

#include <kiln/optim/optimizer.h>

namespace kiln::optim {

/// Adam's (beta1, beta2): decay rates of the first and second moment estimates.
using Betas = std::tuple<double, double>;

struct AdamOptions : OptimizerOptions {
  AdamOptions(double lr = 1e-3) : lr_(lr) {}
  KILN_OPTIM_ARG(double, lr);
  KILN_OPTIM_ARG(Betas, betas) = Betas(0.9, 0.999);
  KILN_OPTIM_ARG(double, eps) = 1e-8;
  KILN_OPTIM_ARG(double, weight_decay) = 0;
  KILN_OPTIM_ARG(bool, amsgrad) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdamOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  void serialize(serialize::OutputArchive& archive) const override;
  void serialize(serialize::InputArchive& archive) override;
};

struct AdamWOptions : OptimizerOptions {
  AdamWOptions(double lr = 1e-3) : lr_(lr) {}
  KILN_OPTIM_ARG(double, lr);
  KILN_OPTIM_ARG(Betas, betas) = Betas(0.9, 0.999);
  KILN_OPTIM_ARG(double, eps) = 1e-8;
  KILN_OPTIM_ARG(double, weight_decay) = 1e-2;
  KILN_OPTIM_ARG(bool, amsgrad) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdamWOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  void serialize(serialize::OutputArchive& archive) const override;
  void serialize(serialize::InputArchive& archive) override;
};

struct AdamParamState : OptimizerParamState {
  KILN_ARG(std::int64_t, step) = 0;
  KILN_ARG(Tensor, exp_avg);
  KILN_ARG(Tensor, exp_avg_sq);
  KILN_ARG(Tensor, max_exp_avg_sq) = {};

 public:
  void serialize(serialize::OutputArchive& archive) const override;
  void serialize(serialize::InputArchive& archive) override;
};
using AdamWParamState = AdamParamState;

class Adam : public Optimizer {
 public:
  /// ValueError for a negative learning rate, eps or weight decay, or betas outside [0, 1).
  Adam(std::vector<Tensor> params, AdamOptions defaults = {});
  Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

class AdamW : public Optimizer {
 public:
  AdamW(std::vector<Tensor> params, AdamWOptions defaults = {});
  AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace kiln::optim

#include <kiln/optim/adam.h>

#include <cmath>

#include <kiln/autograd.h>
#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>
#include <kiln/serialize/archive.h>

#include "frontend/optim/state_tensor.h"

namespace kiln::optim {

namespace {

template <class Options>
const Options& checked(const Options& o, const char* name) {
  auto [beta1, beta2] = o.betas();
  if (o.lr() < 0) throw ValueError(kiln::detail::cat("[optim::", name, "] invalid learning rate: ", o.lr()));
  if (o.eps() < 0) throw ValueError(kiln::detail::cat("[optim::", name, "] invalid epsilon value: ", o.eps()));
  if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1))
    throw ValueError(kiln::detail::cat("[optim::", name, "] invalid betas: (", beta1, ", ", beta2, ")"));
  if (o.weight_decay() < 0)
    throw ValueError(kiln::detail::cat("[optim::", name, "] invalid weight_decay value: ", o.weight_decay()));
  return o;
}

// One Adam update of `p` by `grad` (LibTorch's Adam::step after its weight decay).
template <class Options>
void adam_update(Tensor& p, const Tensor& grad, AdamParamState& s, const Options& o) {
  auto [beta1, beta2] = o.betas();
  if (!s.exp_avg().defined()) {
    s.exp_avg(optimizer_state(zeros_like(p)));
    s.exp_avg_sq(optimizer_state(zeros_like(p)));
    if (o.amsgrad()) s.max_exp_avg_sq(optimizer_state(zeros_like(p)));
  }
  s.step(s.step() + 1);
  const double bias_correction1 = 1 - std::pow(beta1, static_cast<double>(s.step()));
  const double bias_correction2 = 1 - std::pow(beta2, static_cast<double>(s.step()));
  Tensor exp_avg = s.exp_avg(), exp_avg_sq = s.exp_avg_sq();
  exp_avg.mul_(beta1).add_(grad, 1 - beta1);
  exp_avg_sq.mul_(beta2).add_(grad * grad, 1 - beta2);
  Tensor second = exp_avg_sq;
  if (o.amsgrad()) {
    Tensor max_sq = s.max_exp_avg_sq();
    max_sq.copy_(maximum(max_sq, exp_avg_sq));
    second = max_sq;
  }
  Tensor denom = second.sqrt() / std::sqrt(bias_correction2) + o.eps();
  p.sub_(exp_avg / denom, o.lr() / bias_correction1);
}

template <class Options>
void adam_step(std::vector<OptimizerParamGroup>& groups, bool decoupled, const char* name,
               const std::function<AdamParamState&(const Tensor&)>& state_of) {
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : groups) {
    const auto& o = checked(static_cast<const Options&>(group.options()), name);
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor grad = p.grad();
      if (o.weight_decay() != 0) {
        if (decoupled) p.mul_(1 - o.lr() * o.weight_decay());
        else grad = grad.add(p, o.weight_decay());
      }
      adam_update(p, grad, state_of(p), o);
    }
  }
}

template <class Options>
void write_options(const Options& o, serialize::OutputArchive& archive) {
  archive.write("lr", o.lr());
  archive.write("beta1", std::get<0>(o.betas()));
  archive.write("beta2", std::get<1>(o.betas()));
  archive.write("eps", o.eps());
  archive.write("weight_decay", o.weight_decay());
  archive.write("amsgrad", o.amsgrad());
}

template <class Options>
void read_options(Options& o, serialize::InputArchive& archive) {
  double lr = 0, beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
  bool amsgrad = false;
  archive.read("lr", lr);
  archive.read("beta1", beta1);
  archive.read("beta2", beta2);
  archive.read("eps", eps);
  archive.read("weight_decay", weight_decay);
  archive.read("amsgrad", amsgrad);
  o.lr(lr).betas(Betas(beta1, beta2)).eps(eps).weight_decay(weight_decay).amsgrad(amsgrad);
}

}  // namespace

void AdamOptions::serialize(serialize::OutputArchive& archive) const { write_options(*this, archive); }
void AdamOptions::serialize(serialize::InputArchive& archive) { read_options(*this, archive); }
void AdamWOptions::serialize(serialize::OutputArchive& archive) const { write_options(*this, archive); }
void AdamWOptions::serialize(serialize::InputArchive& archive) { read_options(*this, archive); }

void AdamParamState::serialize(serialize::OutputArchive& archive) const {
  archive.write("step", step_);
  archive.write("exp_avg", exp_avg_);
  archive.write("exp_avg_sq", exp_avg_sq_);
  if (max_exp_avg_sq_.defined()) archive.write("max_exp_avg_sq", max_exp_avg_sq_);
}

void AdamParamState::serialize(serialize::InputArchive& archive) {
  archive.read("step", step_);
  archive.read("exp_avg", exp_avg_);
  archive.read("exp_avg_sq", exp_avg_sq_);
  archive.try_read("max_exp_avg_sq", max_exp_avg_sq_);
}

std::unique_ptr<OptimizerParamState> Adam::make_param_state() const { return std::make_unique<AdamParamState>(); }
std::unique_ptr<OptimizerParamState> AdamW::make_param_state() const { return std::make_unique<AdamParamState>(); }

Adam::Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamOptions>(checked(defaults, "Adam"))) {}
Adam::Adam(std::vector<Tensor> params, AdamOptions defaults)
    : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

Tensor Adam::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  adam_step<AdamOptions>(param_groups_, false, "Adam", [this](const Tensor& p) -> AdamParamState& {
    return state_of<AdamParamState>(p, [] { return std::make_unique<AdamParamState>(); });
  });
  return loss;
}

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamWOptions>(checked(defaults, "AdamW"))) {}
AdamW::AdamW(std::vector<Tensor> params, AdamWOptions defaults)
    : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

Tensor AdamW::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  adam_step<AdamWOptions>(param_groups_, true, "AdamW", [this](const Tensor& p) -> AdamParamState& {
    return state_of<AdamParamState>(p, [] { return std::make_unique<AdamParamState>(); });
  });
  return loss;
}

}  // namespace kiln::optim

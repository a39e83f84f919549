#include <kiln/optim/adagrad.h>

#include <kiln/autograd.h>
#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/serialize/archive.h>

#include "frontend/optim/state_tensor.h"

namespace kiln::optim {

namespace {

const AdagradOptions& checked(const AdagradOptions& o) {
  if (o.lr() < 0) throw ValueError(kiln::detail::cat("[optim::Adagrad] invalid learning rate: ", o.lr()));
  if (o.lr_decay() < 0) throw ValueError(kiln::detail::cat("[optim::Adagrad] invalid lr_decay value: ", o.lr_decay()));
  if (o.weight_decay() < 0)
    throw ValueError(kiln::detail::cat("[optim::Adagrad] invalid weight_decay value: ", o.weight_decay()));
  if (o.initial_accumulator_value() < 0)
    throw ValueError(kiln::detail::cat("[optim::Adagrad] initial accumulator value must be >= 0, but got ",
                                       o.initial_accumulator_value()));
  if (o.eps() < 0) throw ValueError(kiln::detail::cat("[optim::Adagrad] invalid epsilon value: ", o.eps()));
  return o;
}

// LibTorch's initial state: step 0, the sum filled with initial_accumulator_value.
std::unique_ptr<AdagradParamState> initial_state(const Tensor& p, const AdagradOptions& o) {
  auto state = std::make_unique<AdagradParamState>();
  state->sum(optimizer_state(full_like(p, o.initial_accumulator_value())));
  return state;
}

}  // namespace

Adagrad::Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdagradOptions>(checked(defaults))) {
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups_) {
    const auto& o = checked(static_cast<const AdagradOptions&>(group.options()));
    for (const Tensor& p : group.params()) state_[p.impl().get()] = initial_state(p, o);
  }
}
Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions defaults)
    : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

void AdagradOptions::serialize(serialize::OutputArchive& archive) const {
  archive.write("lr", lr_);
  archive.write("lr_decay", lr_decay_);
  archive.write("weight_decay", weight_decay_);
  archive.write("initial_accumulator_value", initial_accumulator_value_);
  archive.write("eps", eps_);
}

void AdagradOptions::serialize(serialize::InputArchive& archive) {
  archive.read("lr", lr_);
  archive.read("lr_decay", lr_decay_);
  archive.read("weight_decay", weight_decay_);
  archive.read("initial_accumulator_value", initial_accumulator_value_);
  archive.read("eps", eps_);
}

void AdagradParamState::serialize(serialize::OutputArchive& archive) const {
  archive.write("step", step_);
  archive.write("sum", sum_);
}

void AdagradParamState::serialize(serialize::InputArchive& archive) {
  archive.read("step", step_);
  archive.read("sum", sum_);
}

std::unique_ptr<OptimizerParamState> Adagrad::make_param_state() const { return std::make_unique<AdagradParamState>(); }

Tensor Adagrad::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups_) {
    const auto& o = checked(static_cast<const AdagradOptions&>(group.options()));
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      // A group added after construction gets its state on its first step.
      auto& s = state_of<AdagradParamState>(p, [&] { return initial_state(p, o); });
      s.step(s.step() + 1);
      Tensor grad = p.grad();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      const double clr = o.lr() / (1 + static_cast<double>(s.step() - 1) * o.lr_decay());
      Tensor sum = s.sum();
      sum.add_(grad * grad);
      p.add_(grad / (sum.sqrt() + o.eps()), -clr);
    }
  }
  return loss;
}

}  // namespace kiln::optim

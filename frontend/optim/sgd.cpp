#include <kiln/optim/sgd.h>

#include <kiln/autograd.h>
#include <kiln/error.h>
#include <kiln/serialize/archive.h>

#include "frontend/optim/state_tensor.h"

namespace kiln::optim {

namespace {

const SGDOptions& checked(const SGDOptions& o) {
  if (o.lr() < 0) throw ValueError(kiln::detail::cat("[optim::SGD] invalid learning rate: ", o.lr()));
  if (o.momentum() < 0) throw ValueError(kiln::detail::cat("[optim::SGD] invalid momentum value: ", o.momentum()));
  if (o.weight_decay() < 0)
    throw ValueError(kiln::detail::cat("[optim::SGD] invalid weight_decay value: ", o.weight_decay()));
  if (o.nesterov() && (o.momentum() <= 0 || o.dampening() != 0))
    throw ValueError("[optim::SGD] nesterov momentum requires a momentum and zero dampening");
  return o;
}

}  // namespace

void SGDOptions::serialize(serialize::OutputArchive& archive) const {
  archive.write("lr", lr_);
  archive.write("momentum", momentum_);
  archive.write("dampening", dampening_);
  archive.write("weight_decay", weight_decay_);
  archive.write("nesterov", nesterov_);
}

void SGDOptions::serialize(serialize::InputArchive& archive) {
  archive.read("lr", lr_);
  archive.read("momentum", momentum_);
  archive.read("dampening", dampening_);
  archive.read("weight_decay", weight_decay_);
  archive.read("nesterov", nesterov_);
}

void SGDParamState::serialize(serialize::OutputArchive& archive) const {
  if (momentum_buffer_.defined()) archive.write("momentum_buffer", momentum_buffer_);
}

void SGDParamState::serialize(serialize::InputArchive& archive) {
  archive.try_read("momentum_buffer", momentum_buffer_);
}

std::unique_ptr<OptimizerParamState> SGD::make_param_state() const { return std::make_unique<SGDParamState>(); }

SGD::SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<SGDOptions>(checked(defaults))) {}
SGD::SGD(std::vector<Tensor> params, SGDOptions defaults)
    : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

Tensor SGD::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups_) {
    const auto& o = checked(static_cast<const SGDOptions&>(group.options()));
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor d_p = p.grad();
      if (o.weight_decay() != 0) d_p = d_p.add(p, o.weight_decay());
      if (o.momentum() != 0) {
        auto& state = state_of<SGDParamState>(p, [] { return std::make_unique<SGDParamState>(); });
        Tensor buf = state.momentum_buffer();
        if (!buf.defined()) {
          buf = optimizer_state(d_p.clone());
          state.momentum_buffer(buf);
        } else {
          buf.mul_(o.momentum()).add_(d_p, 1 - o.dampening());
        }
        d_p = o.nesterov() ? d_p.add(buf, o.momentum()) : buf;
      }
      p.add_(d_p, -o.lr());
    }
  }
  return loss;
}

}  // namespace kiln::optim

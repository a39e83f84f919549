#include <kiln/optim/rmsprop.h>

#include <kiln/autograd.h>
#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/serialize/archive.h>

#include "frontend/optim/state_tensor.h"

namespace kiln::optim {

namespace {

const RMSpropOptions& checked(const RMSpropOptions& o) {
  if (o.lr() < 0) throw ValueError(kiln::detail::cat("[optim::RMSprop] invalid learning rate: ", o.lr()));
  if (o.eps() < 0) throw ValueError(kiln::detail::cat("[optim::RMSprop] invalid epsilon value: ", o.eps()));
  if (o.momentum() < 0) throw ValueError(kiln::detail::cat("[optim::RMSprop] invalid momentum value: ", o.momentum()));
  if (o.weight_decay() < 0)
    throw ValueError(kiln::detail::cat("[optim::RMSprop] invalid weight_decay value: ", o.weight_decay()));
  if (o.alpha() < 0) throw ValueError(kiln::detail::cat("[optim::RMSprop] invalid alpha value: ", o.alpha()));
  return o;
}

// LibTorch's RMSprop::step for one parameter: weight decay, the squared-
// gradient average, the (centered) denominator, then momentum or the update.
void rmsprop_update(Tensor& p, Tensor grad, RMSpropParamState& s, const RMSpropOptions& o) {
  // Buffers start at zero; one a group's changed options newly need is made then.
  if (!s.square_avg().defined()) s.square_avg(optimizer_state(zeros_like(p)));
  if (o.momentum() > 0 && !s.momentum_buffer().defined()) s.momentum_buffer(optimizer_state(zeros_like(p)));
  if (o.centered() && !s.grad_avg().defined()) s.grad_avg(optimizer_state(zeros_like(p)));
  s.step(s.step() + 1);
  if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
  const double alpha = o.alpha();
  Tensor square_avg = s.square_avg();
  square_avg.mul_(alpha).add_(grad * grad, 1 - alpha);
  Tensor avg;
  if (o.centered()) {
    Tensor grad_avg = s.grad_avg();
    grad_avg.mul_(alpha).add_(grad, 1 - alpha);
    avg = square_avg.sub(grad_avg * grad_avg).sqrt() + o.eps();
  } else {
    avg = square_avg.sqrt() + o.eps();
  }
  if (o.momentum() > 0) {
    Tensor buf = s.momentum_buffer();
    buf.mul_(o.momentum()).add_(grad / avg);
    p.add_(buf, -o.lr());
  } else {
    p.add_(grad / avg, -o.lr());
  }
}

}  // namespace

RMSprop::RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RMSpropOptions>(checked(defaults))) {}
RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions defaults)
    : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

void RMSpropOptions::serialize(serialize::OutputArchive& archive) const {
  archive.write("lr", lr_);
  archive.write("alpha", alpha_);
  archive.write("eps", eps_);
  archive.write("weight_decay", weight_decay_);
  archive.write("momentum", momentum_);
  archive.write("centered", centered_);
}

void RMSpropOptions::serialize(serialize::InputArchive& archive) {
  archive.read("lr", lr_);
  archive.read("alpha", alpha_);
  archive.read("eps", eps_);
  archive.read("weight_decay", weight_decay_);
  archive.read("momentum", momentum_);
  archive.read("centered", centered_);
}

void RMSpropParamState::serialize(serialize::OutputArchive& archive) const {
  archive.write("step", step_);
  archive.write("square_avg", square_avg_);
  if (momentum_buffer_.defined()) archive.write("momentum_buffer", momentum_buffer_);
  if (grad_avg_.defined()) archive.write("grad_avg", grad_avg_);
}

void RMSpropParamState::serialize(serialize::InputArchive& archive) {
  archive.read("step", step_);
  archive.read("square_avg", square_avg_);
  archive.try_read("momentum_buffer", momentum_buffer_);
  archive.try_read("grad_avg", grad_avg_);
}

std::unique_ptr<OptimizerParamState> RMSprop::make_param_state() const { return std::make_unique<RMSpropParamState>(); }

Tensor RMSprop::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups_) {
    const auto& o = checked(static_cast<const RMSpropOptions&>(group.options()));
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      rmsprop_update(p, p.grad(), state_of<RMSpropParamState>(p, [] { return std::make_unique<RMSpropParamState>(); }),
                     o);
    }
  }
  return loss;
}

}  // namespace kiln::optim

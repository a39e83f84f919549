#include <kiln/optim/optimizer.h>

#include <unordered_set>

#include <kiln/autograd.h>
#include <kiln/error.h>

#include "frontend/handle.h"
#include "frontend/optim/state_tensor.h"
#include "frontend/reset_grad.h"

namespace kiln::optim {

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.options_ ? other.options_->clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  params_ = other.params_;
  options_ = other.options_ ? other.options_->clone() : nullptr;
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  if (!options_) throw ValueError("[optim] this parameter group has no options (it was not added to an optimizer)");
  return *options_;
}
const OptimizerOptions& OptimizerParamGroup::options() const {
  return const_cast<OptimizerParamGroup*>(this)->options();
}

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  for (const OptimizerParamGroup& group : param_groups) add_param_group(group);
}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  std::unordered_set<const void*> seen;
  for (const OptimizerParamGroup& g : param_groups_)
    for (const Tensor& p : g.params()) seen.insert(p.impl().get());
  OptimizerParamGroup group(param_group.params(),
                            param_group.has_options() ? param_group.options().clone() : defaults_->clone());
  for (const Tensor& p : group.params()) {
    if (!p.defined()) throw ValueError("[optim] a parameter is an undefined tensor");
    if (!p.is_leaf())
      throw ValueError(kiln::detail::cat("[optim] can't optimize a non-leaf tensor (", p.dtype(), " ", p.sizes(), ")"));
    if (!seen.insert(p.impl().get()).second)
      throw ValueError(kiln::detail::cat("[optim] some parameters appear in more than one parameter group (",
                                         p.dtype(), " ", p.sizes(), ")"));
  }
  param_groups_.push_back(std::move(group));
  kiln::detail::invalidate_stateful_programs();  // a compiled step updates the groups it was traced with
}

Tensor optimizer_state(Tensor t) {
  frontend::unwrap(t, "optimizer_state").storage->keep_resident("optimizer state");
  return t;
}

void Optimizer::zero_grad(bool set_to_none) {
  for (OptimizerParamGroup& group : param_groups_)
    for (const Tensor& p : group.params()) frontend::reset_grad(p, set_to_none);
}

const std::vector<Tensor>& Optimizer::parameters() const noexcept {
  static const std::vector<Tensor> none;
  return param_groups_.empty() ? none : param_groups_.front().params();
}

std::size_t Optimizer::size() const noexcept {
  std::size_t n = 0;
  for (const OptimizerParamGroup& g : param_groups_) n += g.params().size();
  return n;
}

Tensor Optimizer::run_closure(const LossClosure& closure) {
  if (!closure) return {};
  AutoGradMode enable(true);
  return closure();
}

}  // namespace kiln::optim

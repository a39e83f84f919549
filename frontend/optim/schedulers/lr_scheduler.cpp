#include <kiln/optim/schedulers/lr_scheduler.h>

#include <kiln/error.h>

namespace kiln::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {}

void LRScheduler::step() {
  set_optimizer_lrs(get_lrs());
  ++step_count_;
}

void LRScheduler::set_optimizer_lrs(const std::vector<double>& learning_rates) {
  auto& groups = optimizer_.param_groups();
  if (learning_rates.size() != groups.size())
    throw ValueError(kiln::detail::cat("[optim::LRScheduler] number of learning rates (", learning_rates.size(),
                                       ") not equal to the number of param groups (", groups.size(), ")"));
  for (std::size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(learning_rates[i]);
}

std::vector<double> LRScheduler::get_current_lrs() const {
  std::vector<double> lrs;
  for (const OptimizerParamGroup& group : optimizer_.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

}  // namespace kiln::optim

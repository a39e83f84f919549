// kiln::optim::LRScheduler: LibTorch's torch::optim::LRScheduler, the base of
// the learning-rate schedulers. It holds the optimizer by reference (which
// must outlive it); step() asks the scheduler for one learning rate per
// parameter group (get_lrs(), computed from the step count before this step),
// sets them through OptimizerOptions::set_lr, then advances the count.
#pragma once

#include <vector>

#include <kiln/optim/optimizer.h>

namespace kiln::optim {

class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;

  /// Sets every group's learning rate to get_lrs() and advances the step count.
  void step();
  /// The learning rate of each parameter group, in order.
  std::vector<double> get_current_lrs() const;

 protected:
  /// The next learning rate of each parameter group (step_count_ is the number
  /// of step() calls before this one).
  virtual std::vector<double> get_lrs() = 0;

  unsigned step_count_ = 0;

 private:
  /// ValueError unless there is one learning rate per group.
  void set_optimizer_lrs(const std::vector<double>& learning_rates);

  Optimizer& optimizer_;
};

}  // namespace kiln::optim

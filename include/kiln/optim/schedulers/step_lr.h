// kiln::optim::StepLR: LibTorch's torch::optim::StepLR, which multiplies every
// group's learning rate by gamma every step_size steps. As LibTorch's C++
// (whose get_lrs() sees the count before the step), the first decay happens
// on the (step_size + 1)-th call of step(): after k calls the rate is
// lr * gamma^floor((k - 1) / step_size) (Python's StepLR: floor(k / step_size)).
#pragma once

#include <kiln/optim/schedulers/lr_scheduler.h>

namespace kiln::optim {

class StepLR : public LRScheduler {
 public:
  /// ValueError for a step_size of 0.
  StepLR(Optimizer& optimizer, unsigned step_size, double gamma = 0.1);

 private:
  std::vector<double> get_lrs() override;

  unsigned step_size_;
  double gamma_;
};

}  // namespace kiln::optim

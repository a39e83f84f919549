// kiln::optim::ExponentialLR: Python PyTorch's torch.optim.lr_scheduler.
// ExponentialLR (LibTorch's C++ API has none): every step() multiplies each
// group's learning rate by gamma, so after k calls it is lr * gamma^k.
#pragma once

#include <kiln/optim/schedulers/lr_scheduler.h>

namespace kiln::optim {

class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 private:
  std::vector<double> get_lrs() override;

  double gamma_;
};

}  // namespace kiln::optim

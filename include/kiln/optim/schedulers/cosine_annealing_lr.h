// kiln::optim::CosineAnnealingLR: Python PyTorch's torch.optim.lr_scheduler.
// CosineAnnealingLR (LibTorch's C++ API has none), in its recursive
// (chainable) form, so the sequence is PyTorch's: after k calls of step()
// each group's rate is eta_min + (base_lr - eta_min) * (1 + cos(pi * k / T_max)) / 2
// (base_lr: the group's rate when the scheduler was made), rising again past
// T_max; a rate changed by hand in between is annealed from its new value.
#pragma once

#include <cstdint>

#include <kiln/optim/schedulers/lr_scheduler.h>

namespace kiln::optim {

class CosineAnnealingLR : public LRScheduler {
 public:
  /// ValueError for a T_max below 1; step() throws ValueError if groups were
  /// added to the optimizer after the scheduler was made.
  CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min = 0);

 private:
  std::vector<double> get_lrs() override;

  std::int64_t T_max_;
  double eta_min_;
  std::vector<double> base_lrs_;
};

}  // namespace kiln::optim

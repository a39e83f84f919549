#include <kiln/optim/schedulers/step_lr.h>

#include <kiln/error.h>

namespace kiln::optim {

StepLR::StepLR(Optimizer& optimizer, unsigned step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  if (step_size == 0) throw ValueError("[optim::StepLR] step_size must be positive, got 0");
}

std::vector<double> StepLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (step_count_ == 0 || step_count_ % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

}  // namespace kiln::optim

#include <kiln/optim/schedulers/exponential_lr.h>

namespace kiln::optim {

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma) : LRScheduler(optimizer), gamma_(gamma) {}

std::vector<double> ExponentialLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

}  // namespace kiln::optim

#include <kiln/optim/schedulers/cosine_annealing_lr.h>

#include <cmath>
#include <numbers>

#include <kiln/error.h>

namespace kiln::optim {

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min), base_lrs_(get_current_lrs()) {
  if (T_max < 1)
    throw ValueError(kiln::detail::cat("[optim::CosineAnnealingLR] T_max must be at least 1, got ", T_max));
}

// Python's CosineAnnealingLR.get_lr with last_epoch = the count after this step.
std::vector<double> CosineAnnealingLR::get_lrs() {
  constexpr double pi = std::numbers::pi;
  const auto epoch = static_cast<std::int64_t>(step_count_) + 1;
  const double t_max = static_cast<double>(T_max_);
  std::vector<double> lrs = get_current_lrs();
  if (lrs.size() != base_lrs_.size())
    throw ValueError(kiln::detail::cat("[optim::CosineAnnealingLR] the optimizer has ", lrs.size(),
                                       " param groups but had ", base_lrs_.size(), " when the scheduler was made"));
  // Python's (epoch - 1 - T_max) % (2 * T_max) == 0: the step just past a trough.
  const bool past_trough = ((epoch - 1 - T_max_) % (2 * T_max_) + 2 * T_max_) % (2 * T_max_) == 0;
  for (std::size_t i = 0; i < lrs.size(); ++i) {
    if (past_trough)
      lrs[i] += (base_lrs_[i] - eta_min_) * (1 - std::cos(pi / t_max)) / 2;
    else
      lrs[i] = (1 + std::cos(pi * static_cast<double>(epoch) / t_max)) /
                   (1 + std::cos(pi * static_cast<double>(epoch - 1) / t_max)) * (lrs[i] - eta_min_) +
               eta_min_;
  }
  return lrs;
}

}  // namespace kiln::optim

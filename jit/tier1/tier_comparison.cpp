#include "jit/tier1/tier_comparison.h"

namespace kiln::jit {
namespace {

void keep_min(std::atomic<double>& slot, double v) {
  double cur = slot.load();
  while ((cur == 0 || v < cur) && !slot.compare_exchange_weak(cur, v)) {
  }
}

}  // namespace

void TierComparison::at_threads(int threads) {
  int seen = threads_.load(std::memory_order_relaxed);
  if (seen == threads || !threads_.compare_exchange_strong(seen, threads)) return;
  t0_.store(0);
  t1_.store(0);
  t1_runs_.store(0);
  t1_first_ns_.store(0);
}

void TierComparison::tier0(double ns_per_elem, int threads) {
  at_threads(threads);
  keep_min(t0_, ns_per_elem);
}

bool TierComparison::compiled(double ns_per_elem, int threads, std::int64_t now_ns) {
  at_threads(threads);
  keep_min(t1_, ns_per_elem);
  std::int64_t first = 0;
  t1_first_ns_.compare_exchange_strong(first, now_ns);
  const std::uint32_t runs = t1_runs_.fetch_add(1) + 1;
  const double t0 = t0_.load(), t1 = t1_.load();
  return runs >= kFeedbackRuns && now_ns - t1_first_ns_.load() >= kFeedbackSpanNs && t0 > 0 && t1 > kDemoteFactor * t0;
}

std::string TierComparison::describe() const {
  return "compiled " + std::to_string(t1_.load()) + " ns/element vs tier 0 " + std::to_string(t0_.load()) + " at " +
         std::to_string(threads_.load()) + " threads";
}

}  // namespace kiln::jit

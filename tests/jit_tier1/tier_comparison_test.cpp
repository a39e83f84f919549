// When the JIT retires compiled code as slower than tier 0
// (jit/tier1/tier_comparison.h): only against tier 0 at the same kernel
// thread count, and only once the compiled samples span some time.
#include <gtest/gtest.h>

#include <cstdint>

#include "jit/tier1/tier_comparison.h"

namespace {

using kiln::jit::TierComparison;

constexpr std::int64_t kMs = 1'000'000;

// `runs` compiled samples of `ns_per_elem`, `every` apart from `start`:
// whether any asked for the code to be retired.
bool compiled_runs(TierComparison& c, double ns_per_elem, int threads, int runs, std::int64_t start,
                   std::int64_t every) {
  bool retire = false;
  for (int i = 0; i < runs; ++i) retire |= c.compiled(ns_per_elem, threads, start + i * every);
  return retire;
}

TEST(TierComparison, CompiledCodeSlowerThanTierZeroIsRetiredOnceItsSamplesSpanTheTime) {
  TierComparison c;
  c.tier0(1.0, 2);
  EXPECT_FALSE(compiled_runs(c, 1.5, 2, TierComparison::kFeedbackRuns, 0, kMs))
      << "16 runs within 16 ms: a background compile may have slowed all of them";
  EXPECT_TRUE(c.compiled(1.5, 2, TierComparison::kFeedbackSpanNs + kMs));
}

TEST(TierComparison, CompiledCodeAsFastAsTierZeroStays) {
  TierComparison c;
  c.tier0(1.0, 2);
  EXPECT_FALSE(compiled_runs(c, 1.2, 2, 64, 0, 10 * kMs));
  // One fast compiled run is its measure, whatever the slow ones after it.
  TierComparison d;
  d.tier0(1.0, 2);
  EXPECT_FALSE(d.compiled(0.5, 2, 0));
  EXPECT_FALSE(compiled_runs(d, 3.0, 2, 64, kMs, 10 * kMs));
}

TEST(TierComparison, TierZeroOnTwoThreadsIsNotTheMeasureOfCodeRunOnOne) {
  TierComparison c;
  c.tier0(1.0, 2);
  EXPECT_FALSE(compiled_runs(c, 1.5, 1, 64, 0, 10 * kMs)) << "1 thread against 2";
  c.tier0(1.0, 1);  // tier 0 measured on one thread too: now the code is slower
  EXPECT_TRUE(compiled_runs(c, 1.5, 1, 64, 700 * kMs, 10 * kMs));
}

TEST(TierComparison, NothingIsRetiredWithoutATierZeroSample) {
  TierComparison c;
  EXPECT_FALSE(compiled_runs(c, 100.0, 2, 64, 0, 10 * kMs));
}

}  // namespace

// Random programs (tests/random: views, in-place writes through views,
// reductions, products, reads mid-program) under random memory budgets below
// their unconstrained peak (60-95%): every value they read agrees with the
// reference, or the program stops with kiln::OutOfMemory -- never a wrong
// value. On tier 0, and on tier 1 (every segment compiled on its first run),
// where values fused away by a compiled kernel are recomputed on tier 0.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include <kiln/kiln.h>

#include "tests/random/run_program.h"

namespace {

class RandomProgramsUnderBudget : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    kiln::jit::set_enabled(GetParam());
    kiln::jit::set_compile_sync(GetParam());
    kiln::jit::set_hot_threshold(1);
  }
  void TearDown() override {
    kiln::set_memory_budget(0);
    kiln::jit::set_compile_sync(false);
    kiln::jit::set_hot_threshold(2);
    kiln::jit::set_enabled(true);
  }
};

TEST_P(RandomProgramsUnderBudget, AgreeWithTheReferenceOrRunOutOfMemoryCleanly) {
  std::mt19937 pick(11);
  int evicting = 0, out_of_memory = 0;
  const unsigned kPrograms = GetParam() ? 80 : 200;  // tier 1 compiles each program's kernels
  // KILN_TEST_SEED=<n> runs programs n.. instead (to search more seeds by hand).
  const unsigned first = std::getenv("KILN_TEST_SEED") ? std::stoul(std::getenv("KILN_TEST_SEED")) : 500;
  for (unsigned seed = first; seed < first + kPrograms; ++seed) {
    kiln::sync();
    const std::uint64_t base = kiln::stats().live_bytes;
    kiln::reset_stats();
    ASSERT_TRUE(rprog::run_program(seed, kiln::kFloat64)) << "seed " << seed << " without a budget";
    const std::uint64_t peak = kiln::stats().peak_bytes;
    if (peak <= base) continue;
    const double fraction = std::uniform_real_distribution<double>(0.6, 0.95)(pick);
    kiln::sync();
    kiln::set_memory_budget(kiln::stats().live_bytes + static_cast<std::size_t>(fraction * (peak - base)));
    const std::uint64_t evictions = kiln::stats().evictions;
    const ::testing::AssertionResult r = rprog::run_program(seed, kiln::kFloat64);
    kiln::set_memory_budget(0);
    const bool ran_out = !r && std::string(r.message()).find("[memory] cannot allocate") != std::string::npos;
    EXPECT_TRUE(r || ran_out) << "seed " << seed << " at " << fraction << " of its peak: " << r.message();
    out_of_memory += ran_out;
    evicting += r && kiln::stats().evictions > evictions;
  }
  std::printf("%d of %u programs evicted and agreed, %d ran out of memory\n", evicting, kPrograms, out_of_memory);
  // Small values, many of them leaves, written in place (which have no
  // recipe) or of 64 bytes or less (never evicted), leave most of these
  // programs little to evict: a sixteenth must.
  EXPECT_GE(evicting, static_cast<int>(kPrograms / 16)) << "the budgets were meant to force evictions";
}

INSTANTIATE_TEST_SUITE_P(Tiers, RandomProgramsUnderBudget, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Tier1" : "Tier0"; });

}  // namespace

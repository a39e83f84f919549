// The random-program fuzzer on tier 1: every segment is compiled at its
// first run, in the foreground, so each program's fused kernels are the
// ones checked against the reference (the tier-0 suite, tests/random, runs
// the same generator interpreted). 1000 programs, each from a fixed seed
// printed on failure, so a failure reproduces exactly.
#include <gtest/gtest.h>

#include <tuple>

#include <kiln/kiln.h>

#include "tests/random/run_program.h"

namespace {

// Shards of 50 programs: each test stays far below ctest's timeout even on a
// loaded machine (every program compiles its kernels), and ctest -j spreads them.
constexpr int kShard = 50;

class Tier1Programs : public ::testing::TestWithParam<std::tuple<kiln::ScalarType, int>> {
 protected:
  void SetUp() override {
    kiln::jit::set_enabled(true);
    kiln::jit::set_compile_sync(true);
    kiln::jit::set_hot_threshold(1);
  }
  void TearDown() override { kiln::jit::set_compile_sync(false); }
};

TEST_P(Tier1Programs, AgreeWithTheReference) {
  const auto [dt, shard] = GetParam();
  const unsigned base = (dt == kiln::kFloat64 ? 11000 : dt == kiln::kFloat32 ? 12000 : 13000) + shard * kShard;
  const int count = kShard;
  std::uint64_t compiled = kiln::stats().jit.group_runs_compiled;
  int failures = 0;
  for (int i = 0; i < count && failures < 3; ++i) {
    ::testing::AssertionResult r = rprog::run_program(base + i, dt);
    if (!r) ++failures;
    EXPECT_TRUE(r) << "reproduce with run_program(" << base + i << ", " << kiln::to_string(dt)
                   << ") under KILN_JIT_SYNC=1 KILN_HOT_THRESHOLD=1";
  }
  EXPECT_GT(kiln::stats().jit.group_runs_compiled, compiled + static_cast<std::uint64_t>(count))
      << "the programs ran compiled kernels";
  EXPECT_EQ(kiln::stats().jit.compiles_failed, 0u);
}

// 8 + 6 + 6 shards of 50: 1000 programs.
INSTANTIATE_TEST_SUITE_P(Double, Tier1Programs, ::testing::Combine(::testing::Values(kiln::kFloat64), ::testing::Range(0, 8)));
INSTANTIATE_TEST_SUITE_P(Float, Tier1Programs, ::testing::Combine(::testing::Values(kiln::kFloat32), ::testing::Range(0, 6)));
INSTANTIATE_TEST_SUITE_P(Long, Tier1Programs, ::testing::Combine(::testing::Values(kiln::kInt64), ::testing::Range(0, 6)));

// Float64 programs with backward (tests/random draws the same generator on
// tier 0): forward and gradient ops compiled at their first run. Two shards.
class Tier1BackwardPrograms : public Tier1Programs {};

TEST_P(Tier1BackwardPrograms, MatchCentralDifferences) {
  const unsigned base = 17000 + std::get<1>(GetParam()) * kShard;
  int failures = 0, checked_count = 0;
  for (int i = 0; i < kShard && failures < 3; ++i) {
    bool checked = false;
    ::testing::AssertionResult r = rprog::run_program_backward(base + i, checked);
    if (!r) ++failures;
    EXPECT_TRUE(r) << "reproduce with run_program_backward(" << base + i
                   << ") under KILN_JIT_SYNC=1 KILN_HOT_THRESHOLD=1";
    checked_count += checked;
  }
  EXPECT_GE(checked_count, kShard / 3) << "programs whose gradient was compared";
  EXPECT_EQ(kiln::stats().jit.compiles_failed, 0u);
}

INSTANTIATE_TEST_SUITE_P(Double, Tier1BackwardPrograms,
                         ::testing::Combine(::testing::Values(kiln::kFloat64), ::testing::Range(0, 2)));

}  // namespace

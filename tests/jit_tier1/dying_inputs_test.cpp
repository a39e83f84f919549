// A compiled group writing its output into the memory of an input that dies
// in it (jit/tier1/dying_input.h), on tier 1 against tier 0.
#include <gtest/gtest.h>

#include <vector>

#include "tests/jit_tier1/tiers.h"

namespace {

using kiln::Tensor;
using tiers::tiers_agree;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

Tensor input() {
  kiln::manual_seed(21);
  return kiln::randn({512, 512}) * 0.01;  // 1 MiB
}

// cumsum runs on tier 0 and its result dies in the fused group after it,
// whose output takes its memory: one buffer for both, not two.
TEST(DyingInputs, ACompiledGroupsOutputTakesTheMemoryOfAnInputThatDiesInIt) {
  const Tensor x = input();
  auto program = [&] { return std::vector<Tensor>{(x.cumsum(1) * 2 + 1).exp()}; };
  EXPECT_TRUE(tiers_agree(program));
  tiers::Tier1Scope tier1;
  program();
  kiln::sync();  // compiled at its first run
  kiln::reset_stats();
  const std::uint64_t compiled = kiln::stats().jit.group_runs_compiled;
  const std::uint64_t live = kiln::stats().live_bytes;
  const Tensor y = program()[0];
  kiln::sync();
  EXPECT_GT(kiln::stats().jit.group_runs_compiled, compiled) << "the group ran compiled";
  EXPECT_LE(kiln::stats().peak_bytes - live, kMiB + 64 * 1024) << "y in the memory of x.cumsum(1)";
}

// The same input read again after the group (by a second cumsum, on tier
// 0) keeps its memory: the group's output gets its own.
TEST(DyingInputs, AnInputReadAfterTheGroupKeepsItsMemory) {
  const Tensor x = input();
  EXPECT_TRUE(tiers_agree([&] {
    const Tensor t = x.cumsum(1);
    const Tensor y = (t * 2 + 1).exp();
    return std::vector<Tensor>{y, t.cumsum(0)};
  }));
}

// An input the group reads through two views (t and its transpose), or
// only through one whose layout differs from the output's, keeps its memory.
TEST(DyingInputs, AnInputReadThroughTwoViewsOrTransposedKeepsItsMemory) {
  const Tensor x = input();
  EXPECT_TRUE(tiers_agree([&] {
    const Tensor t = x.cumsum(1), u = x.cumsum(0);
    return std::vector<Tensor>{(t * t.t() + 1).exp(), (u.t() * 2 + x).tanh()};
  }));
}

}  // namespace

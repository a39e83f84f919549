// The payoff of compiling a key (kiln/profiler/payoff.h): the time its
// compiled runs saved at the mean tier-0 run, net of the compile time, and
// the run at which the compile is repaid.
#include <gtest/gtest.h>

#include <sstream>

#include <kiln/profiler/payoff.h>
#include <kiln/profiler/stats.h>

namespace {

TEST(Payoff, SavedTimeNetOfTheCompileAndTheBreakEvenRun) {
  // Tier 0: 5 ms a run; tier 1: 1 ms a run; 20 ms of compiling.
  kiln::KeyRuns r{2, 10, 10.0, 10.0, 20.0};
  EXPECT_DOUBLE_EQ(r.payoff_ms(), 10 * 4.0 - 20.0);
  EXPECT_DOUBLE_EQ(r.break_even_runs(), 5.0);
  r.runs_tier1 = 3;
  r.tier1_ms = 3.0;
  EXPECT_DOUBLE_EQ(r.payoff_ms(), 3 * 4.0 - 20.0) << "not yet repaid: negative";
}

TEST(Payoff, NothingToCompareWithoutARunOnEachTierAndNoBreakEvenWhenSlower) {
  EXPECT_EQ((kiln::KeyRuns{0, 10, 0.0, 10.0, 5.0}).payoff_ms(), 0.0);
  EXPECT_EQ((kiln::KeyRuns{4, 0, 8.0, 0.0, 5.0}).payoff_ms(), 0.0);
  EXPECT_EQ((kiln::KeyRuns{4, 0, 8.0, 0.0, 5.0}).break_even_runs(), -1.0);
  const kiln::KeyRuns slower{1, 4, 1.0, 8.0, 5.0};  // tier 1 at 2 ms a run against 1 ms
  EXPECT_DOUBLE_EQ(slower.payoff_ms(), 4 * -1.0 - 5.0);
  EXPECT_EQ(slower.break_even_runs(), -1.0);
}

TEST(Payoff, TheReportShowsItPerKey) {
  kiln::Stats s;
  kiln::KeyStats k;
  k.key = 0xab;
  k.runs = 12;
  k.runs_tier0 = 2;
  k.runs_tier1 = 10;
  k.tier0_ms = 10;
  k.tier1_ms = 10;
  k.compile_ms = 20;
  s.top_keys.push_back(k);
  std::ostringstream out;
  out << s;
  EXPECT_NE(out.str().find("payoff ms  break-even"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("20.000      5 runs"), std::string::npos) << out.str();
}

}  // namespace

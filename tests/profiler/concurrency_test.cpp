#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "profiler/counters.h"

namespace kiln::profiler {
namespace {

TEST(ProfilerConcurrency, RunsFromManyThreadsSumExactly) {
  reset();
  constexpr int kThreads = 4;
  constexpr int kRuns = 10000;
  constexpr std::uint64_t kKeys = 8;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < kRuns; ++i) {
        add_ops_recorded(3);
        const auto why = static_cast<CutReason>((t + i) % kNumCutReasons);
        record_segment_run({.key = static_cast<std::uint64_t>(i) % kKeys, .reason = why, .ops_run = 2, .ops_eliminated = 1,
                            .nanoseconds = 1000, .intermediate_bytes = 64});
      }
    });
  }
  for (auto& t : threads) t.join();

  const Stats s = snapshot();
  constexpr std::uint64_t kTotal = kThreads * kRuns;
  EXPECT_EQ(s.ops_recorded, 3 * kTotal);
  EXPECT_EQ(s.ops_executed, 2 * kTotal);
  EXPECT_EQ(s.ops_eliminated, kTotal);
  EXPECT_EQ(s.segments_run, kTotal);
  EXPECT_EQ(s.intermediate_bytes, 64 * kTotal);
  std::uint64_t by_reason = 0;
  for (std::uint64_t n : s.segments_by_reason) by_reason += n;
  EXPECT_EQ(by_reason, kTotal);
  EXPECT_EQ(s.distinct_keys, kKeys);
  ASSERT_EQ(s.top_keys.size(), kKeys);
  for (const KeyStats& k : s.top_keys) {
    EXPECT_EQ(k.runs, kTotal / kKeys) << k.key;
    EXPECT_EQ(k.ops, 3u);
    EXPECT_DOUBLE_EQ(k.total_ms, static_cast<double>(kTotal / kKeys) * 1000 / 1e6);
  }
}

}  // namespace
}  // namespace kiln::profiler

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "profiler/counters.h"
#include "profiler/thread_block.h"

namespace kiln::profiler {
namespace {

constexpr auto index(CutReason r) { return static_cast<std::size_t>(r); }

// One tier-0 run of `key`.
void run(std::uint64_t key, CutReason why, std::uint32_t ops_run, std::uint32_t ops_eliminated,
         std::uint64_t nanoseconds, std::uint64_t intermediate_bytes) {
  record_segment_run({.key = key, .reason = why, .ops_run = ops_run, .ops_eliminated = ops_eliminated,
                      .nanoseconds = nanoseconds, .intermediate_bytes = intermediate_bytes});
}

TEST(ProfilerCounters, ScalarCountersAddUp) {
  reset();
  add_ops_recorded(5);
  add_ops_recorded(7);
  run(0xa, CutReason::Sync, 10, 2, 1'000'000, 4096);
  run(0xa, CutReason::Sync, 10, 2, 3'000'000, 4096);
  run(0xb, CutReason::Item, 3, 0, 500'000, 0);

  const Stats s = snapshot();
  EXPECT_EQ(s.ops_recorded, 12u);
  EXPECT_EQ(s.ops_executed, 23u);
  EXPECT_EQ(s.ops_eliminated, 4u);
  EXPECT_EQ(s.segments_run, 3u);
  EXPECT_EQ(s.intermediate_bytes, 8192u);
  EXPECT_EQ(s.segments_by_reason[index(CutReason::Sync)], 2u);
  EXPECT_EQ(s.segments_by_reason[index(CutReason::Item)], 1u);
  EXPECT_EQ(s.segments_by_reason[index(CutReason::Print)], 0u);
  EXPECT_EQ(s.allocations, 0u);  // memory fields are the frontend's to fill
  EXPECT_EQ(s.live_bytes, 0u);
}

TEST(ProfilerCounters, KeysAggregateRunsOpsTimeAndReasons) {
  reset();
  run(0xa, CutReason::Item, 10, 2, 1'000'000, 0);
  run(0xa, CutReason::Sync, 10, 2, 2'500'000, 0);
  run(0xb, CutReason::Print, 4, 0, 100'000, 0);

  const Stats s = snapshot();
  EXPECT_EQ(s.distinct_keys, 2u);
  ASSERT_EQ(s.top_keys.size(), 2u);
  const KeyStats& a = s.top_keys[0];
  EXPECT_EQ(a.key, 0xau);
  EXPECT_EQ(a.runs, 2u);
  EXPECT_EQ(a.ops, 12u);
  EXPECT_DOUBLE_EQ(a.total_ms, 3.5);
  EXPECT_STREQ(a.first_reason, "item");
  EXPECT_STREQ(a.last_reason, "sync");
  EXPECT_EQ(s.top_keys[1].key, 0xbu);
  EXPECT_STREQ(s.top_keys[1].first_reason, "print");
}

TEST(ProfilerCounters, TopKeysAreTheSixteenMostRun) {
  reset();
  for (std::uint64_t key = 1; key <= 20; ++key) {
    for (std::uint64_t r = 0; r < key % 5 + 1; ++r) run(key, CutReason::Sync, 1, 0, 0, 0);
  }
  const Stats s = snapshot();
  EXPECT_EQ(s.distinct_keys, 20u);
  ASSERT_EQ(s.top_keys.size(), 16u);
  // Most runs first; equal runs by smaller key, so the order is reproducible.
  EXPECT_EQ(s.top_keys[0].key, 4u);
  EXPECT_EQ(s.top_keys[0].runs, 5u);
  EXPECT_EQ(s.top_keys[1].key, 9u);
  for (std::size_t i = 1; i < s.top_keys.size(); ++i) {
    const KeyStats& prev = s.top_keys[i - 1];
    const KeyStats& cur = s.top_keys[i];
    EXPECT_TRUE(prev.runs > cur.runs || (prev.runs == cur.runs && prev.key < cur.key)) << i;
  }
  // The four left out are the least run: keys 5, 10, 15, 20 with one run each.
  EXPECT_EQ(s.top_keys.back().runs, 2u);
}

TEST(ProfilerCounters, AThreadKeepsItsMostRecentlyRunKeysWithinTheLimit) {
  reset();
  set_key_record_limit(16);
  for (std::uint64_t key = 1; key <= 200; ++key)
    record_segment_run({.key = key, .reason = CutReason::Item, .ops_run = 1, .start_ns = static_cast<std::int64_t>(key),
                        .nanoseconds = 10});
  std::size_t records = 0;
  bool has_latest = false, has_oldest = false;
  for_each_block([&](ThreadBlock& b) {
    std::lock_guard lock(b.keys_mu);
    for (const LocalKey& k : b.keys) {
      ++records;
      has_latest |= k.key == 200;
      has_oldest |= k.key == 1;
    }
  });
  EXPECT_LE(records, 16u);
  EXPECT_TRUE(has_latest);
  EXPECT_FALSE(has_oldest);
  const Stats s = snapshot();
  EXPECT_EQ(s.distinct_keys, 200u) << "keys whose records went are still counted";
  EXPECT_EQ(s.segments_run, 200u);
  ASSERT_FALSE(s.top_keys.empty());
  EXPECT_STREQ(s.top_keys[0].first_reason, "item");
  set_key_record_limit(2048);  // the default
}

TEST(ProfilerCounters, ResetZeroesEverything) {
  add_ops_recorded(3);
  run(1, CutReason::OpLimit, 1, 1, 1, 1);
  reset();
  const Stats s = snapshot();
  EXPECT_EQ(s.ops_recorded, 0u);
  EXPECT_EQ(s.ops_executed, 0u);
  EXPECT_EQ(s.ops_eliminated, 0u);
  EXPECT_EQ(s.segments_run, 0u);
  EXPECT_EQ(s.intermediate_bytes, 0u);
  for (std::uint64_t n : s.segments_by_reason) EXPECT_EQ(n, 0u);
  EXPECT_EQ(s.distinct_keys, 0u);
  EXPECT_TRUE(s.top_keys.empty());
}

TEST(ProfilerCounters, EveryReasonHasItsName) {
  const char* expected[] = {"item", "data_ptr", "to_vector", "print", "bool", "sync",
                            "op_limit", "cross_thread", "thread_exit", "memory_pressure", "borrowed"};
  static_assert(std::size(expected) == kNumCutReasons);
  for (std::size_t i = 0; i < kNumCutReasons; ++i) {
    EXPECT_STREQ(to_string(static_cast<CutReason>(i)), expected[i]);
    EXPECT_STREQ(Stats::reason_name(i), expected[i]);
  }
  EXPECT_STREQ(to_string(CutReason::kCount), "?");
  EXPECT_STREQ(Stats::reason_name(kNumCutReasons), "?");
  EXPECT_STREQ(Stats::reason_name(1000), "?");
}

}  // namespace
}  // namespace kiln::profiler

// kiln::stats() as the user sees it: ops recorded, segments by cut reason,
// dead-value elimination, recurring keys, the trace limit.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <kiln/kiln.h>
#include <kiln/memory/memory.h>

namespace {

using kiln::Tensor;

std::size_t reason(const char* name) {
  for (std::size_t i = 0; i < kiln::kNumCutReasons; ++i)
    if (std::strcmp(kiln::Stats::reason_name(i), name) == 0) return i;
  ADD_FAILURE() << "no cut reason named " << name;
  return 0;
}

class StatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kiln::sync();  // nothing pending from earlier tests
    kiln::reset_stats();
  }
  void TearDown() override { kiln::set_trace_limit(4096); }
};

TEST_F(StatsTest, ReasonNamesAreTheDocumentedOnes) {
  const char* names[] = {"item", "data_ptr", "to_vector", "print", "bool",
                         "sync", "op_limit", "cross_thread", "thread_exit", "memory_pressure", "borrowed"};
  for (std::size_t i = 0; i < kiln::kNumCutReasons; ++i) EXPECT_STREQ(kiln::Stats::reason_name(i), names[i]);
  EXPECT_STREQ(kiln::Stats::reason_name(kiln::kNumCutReasons), "?");
}

TEST_F(StatsTest, OpsRecordedCountsEveryOpAndItemCutsOneSegment) {
  Tensor a = kiln::ones({4});  // 1: fill
  Tensor b = a + 1;            // 2
  Tensor c = b * 2;            // 3
  Tensor s = c.sum();          // 4
  EXPECT_EQ(kiln::stats().segments_run, 0u) << "nothing runs before a value is read";
  EXPECT_EQ(s.item<float>(), 16.0f);
  kiln::Stats st = kiln::stats();
  EXPECT_EQ(st.ops_recorded, 4u);
  EXPECT_EQ(st.segments_run, 1u);
  EXPECT_EQ(st.segments_by_reason[reason("item")], 1u);
  EXPECT_EQ(st.ops_executed + st.ops_eliminated, 4u);
}

TEST_F(StatsTest, EachMaterializationPointCountsItsOwnReason) {
  Tensor a = kiln::ones({2}) * 3;
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{3, 3}));
  Tensor b = a + 1;
  EXPECT_EQ(b.data_ptr<float>()[1], 4.0f);
  Tensor c = b.sum() > 7;
  EXPECT_TRUE(static_cast<bool>(c));
  Tensor d = b * 2;
  std::ostringstream os;
  os << d;
  EXPECT_NE(os.str().find('8'), std::string::npos) << os.str();
  Tensor e = d - 1;
  kiln::sync();
  kiln::Stats st = kiln::stats();
  EXPECT_EQ(st.segments_by_reason[reason("to_vector")], 1u);
  EXPECT_EQ(st.segments_by_reason[reason("data_ptr")], 1u);
  EXPECT_EQ(st.segments_by_reason[reason("bool")], 1u);
  EXPECT_EQ(st.segments_by_reason[reason("print")], 1u);
  EXPECT_EQ(st.segments_by_reason[reason("sync")], 1u);
  EXPECT_EQ(st.segments_by_reason[reason("item")], 0u);
  EXPECT_EQ(st.segments_run, 5u);
  EXPECT_EQ(e.to_vector<float>(), (std::vector<float>{7, 7}));
}

TEST_F(StatsTest, ReadingAnAlreadyComputedTensorRunsNothing) {
  Tensor a = kiln::ones({3}) + 1;
  (void)a.to_vector<float>();
  std::uint64_t runs = kiln::stats().segments_run;
  (void)a.to_vector<float>();
  (void)a.data_ptr<float>();
  EXPECT_EQ(kiln::stats().segments_run, runs);
}

TEST_F(StatsTest, DeadValuesAreEliminatedAndNeverAllocated) {
  constexpr std::uint64_t kBytes = 1000 * sizeof(float);
  kiln::memory::reset_peak();
  const std::uint64_t live_before = kiln::stats().live_bytes;
  {
    Tensor a = kiln::ones({1000});
    { Tensor dead = a * 3; }  // nobody holds it when the segment runs
    Tensor live = a + 1;
    EXPECT_EQ(live.sum().item<float>(), 2000.0f);
  }
  kiln::Stats st = kiln::stats();
  EXPECT_GE(st.ops_eliminated, 1u);
  EXPECT_EQ(st.ops_executed + st.ops_eliminated, st.ops_recorded);
  EXPECT_LT(st.intermediate_bytes, kBytes) << "the dead product was materialized as a temporary";
  // a, live and the sum are held; the dead product would be a fourth 4000-byte block.
  EXPECT_LT(st.peak_bytes - live_before, 3 * kBytes) << "peak " << st.peak_bytes << ", before " << live_before;
}

TEST_F(StatsTest, ALoopOfTheSameOpsIsOneKeyRunOncePerIteration) {
  constexpr int kIterations = 10;
  for (int i = 0; i < kIterations; ++i) {
    Tensor x = kiln::ones({8});
    ASSERT_EQ(((x * 2) + 1).sum().item<float>(), 24.0f);
  }
  kiln::Stats st = kiln::stats();
  EXPECT_EQ(st.distinct_keys, 1u);
  ASSERT_EQ(st.top_keys.size(), 1u);
  EXPECT_EQ(st.top_keys[0].runs, static_cast<std::uint64_t>(kIterations));
  EXPECT_EQ(st.top_keys[0].ops, 4u);
  EXPECT_STREQ(st.top_keys[0].first_reason, "item");
  EXPECT_EQ(st.segments_run, static_cast<std::uint64_t>(kIterations));
  EXPECT_EQ(st.ops_recorded, 4u * kIterations);
}

TEST_F(StatsTest, DifferentShapesAreDifferentKeys) {
  for (std::int64_t n : {2, 3, 2, 3}) (void)(kiln::ones({n}) * 2).sum().item<float>();
  kiln::Stats st = kiln::stats();
  EXPECT_EQ(st.distinct_keys, 2u);
  ASSERT_GE(st.top_keys.size(), 2u);
  EXPECT_EQ(st.top_keys[0].runs, 2u);
  EXPECT_EQ(st.top_keys[1].runs, 2u);
}

TEST_F(StatsTest, TraceLimitCutsSegmentsWithReasonOpLimit) {
  kiln::set_trace_limit(3);
  Tensor x = kiln::ones({1});  // op 1
  for (int i = 0; i < 6; ++i) x = x + 1;  // ops 2..7
  EXPECT_EQ(x.item<float>(), 7.0f);
  kiln::Stats st = kiln::stats();
  EXPECT_EQ(st.ops_recorded, 7u);
  EXPECT_EQ(st.segments_by_reason[reason("op_limit")], 2u);
  EXPECT_EQ(st.segments_by_reason[reason("item")], 1u);
}

TEST_F(StatsTest, ResetStatsZeroesTheCounters) {
  (void)(kiln::ones({2}) + 1).sum().item<float>();
  kiln::reset_stats();
  kiln::Stats st = kiln::stats();
  EXPECT_EQ(st.ops_recorded, 0u);
  EXPECT_EQ(st.segments_run, 0u);
  EXPECT_EQ(st.distinct_keys, 0u);
  EXPECT_TRUE(st.top_keys.empty());
}

TEST_F(StatsTest, MemoryBudgetIsReported) {
  kiln::set_memory_budget(std::size_t{1} << 30);
  EXPECT_EQ(kiln::stats().budget_bytes, std::uint64_t{1} << 30);
  kiln::set_memory_budget(0);
  EXPECT_EQ(kiln::stats().budget_bytes, 0u);
}

}  // namespace

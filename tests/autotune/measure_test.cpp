// The timing harness: outlier rejection, the median, and the early stop on max_seconds.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "autotune/measure.h"

namespace kiln::autotune {
namespace {

TEST(Summarize, DropsSamplesFarAboveTheMedian) {
  // median 1.0, MAD 0.02: the limit is 1.06, so 5.0 goes and 1.05 stays.
  const Timing t = summarize({1.0, 0.98, 1.02, 5.0, 1.0, 1.05, 0.99});
  EXPECT_EQ(t.taken, 7);
  EXPECT_EQ(t.kept, 6);
  EXPECT_DOUBLE_EQ(t.median_seconds, 1.0);
  EXPECT_DOUBLE_EQ(t.spread, (1.05 - 0.98) / 1.0);
}

TEST(Summarize, MadIsFlooredAtOnePercentOfTheMedian) {
  // Most samples are identical, so MAD is 0; without the floor 2.05 would be dropped too.
  const Timing t = summarize({2.0, 2.0, 2.0, 2.0, 2.05, 2.07});
  EXPECT_EQ(t.kept, 5);  // limit 2.0 + 3 * 0.02 = 2.06
  EXPECT_DOUBLE_EQ(t.median_seconds, 2.0);
}

TEST(Summarize, FastSamplesAreNeverOutliers) {
  const Timing t = summarize({1.0, 1.0, 1.0, 0.1});
  EXPECT_EQ(t.kept, 4);
  EXPECT_DOUBLE_EQ(t.median_seconds, 1.0);
  EXPECT_DOUBLE_EQ(t.spread, 0.9);
}

TEST(Summarize, EvenCountTakesTheMiddleMean) {
  const Timing t = summarize({4.0, 1.0, 3.0, 2.0});
  EXPECT_EQ(t.kept, 4);
  EXPECT_DOUBLE_EQ(t.median_seconds, 2.5);
}

TEST(Summarize, OneSampleAndNone) {
  const Timing t = summarize({0.5});
  EXPECT_EQ(t.kept, 1);
  EXPECT_EQ(t.taken, 1);
  EXPECT_DOUBLE_EQ(t.median_seconds, 0.5);
  EXPECT_DOUBLE_EQ(t.spread, 0.0);
  EXPECT_THROW(summarize({}), std::invalid_argument);
}

TEST(Measure, OneSlowRepetitionDoesNotMoveTheMedian) {
  int calls = 0;
  MeasureOptions options;
  options.warmup = 1;
  options.repetitions = 7;
  const Timing t = measure(
      [&] {
        ++calls;
        // Call 4 is the third timed run: 100 ms among 2 ms runs.
        std::this_thread::sleep_for(std::chrono::milliseconds(calls == 4 ? 100 : 2));
      },
      options);
  EXPECT_EQ(calls, 8);
  EXPECT_EQ(t.taken, 7);
  EXPECT_LE(t.kept, 6);
  EXPECT_GE(t.median_seconds, 0.002);
  EXPECT_LT(t.median_seconds, 0.02);
  EXPECT_LT(t.spread, 10.0) << "the 100 ms sample was kept";
}

TEST(Measure, StopsOnceMaxSecondsIsSpent) {
  int calls = 0;
  const MeasureOptions options{.warmup = 0, .repetitions = 100, .max_seconds = 0.05};
  const Timing t = measure(
      [&] {
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      },
      options);
  EXPECT_EQ(t.taken, calls);
  EXPECT_GE(t.taken, 1);
  EXPECT_LE(t.taken, 3);  // the third 20 ms run crosses 50 ms
  EXPECT_GE(t.median_seconds, 0.02);
}

TEST(Measure, AtLeastOneTimedRunWhenWarmupSpendsTheBudget) {
  int calls = 0;
  const Timing t = measure([&] { ++calls; }, {.warmup = 2, .repetitions = 5, .max_seconds = 0});
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(t.taken, 1);
  EXPECT_EQ(t.kept, 1);
}

}  // namespace
}  // namespace kiln::autotune

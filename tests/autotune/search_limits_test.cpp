// search() stops on cancel and on its wall-clock budget with the best so far, and
// reports progress after every measurement.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "autotune/search.h"

namespace kiln::autotune {
namespace {

ConfigSpace line(std::int64_t n) {
  std::vector<std::int64_t> values;
  for (std::int64_t v = 0; v < n; ++v) values.push_back(v);
  ConfigSpace space;
  space.add("x", values);
  return space;
}

// Cheaper for larger x: the best so far is always the last one measured.
std::optional<double> falling(const Config& c, int) { return 100.0 - static_cast<double>(c.at("x")); }

TEST(SearchLimits, CancelStopsBetweenEvaluations) {
  std::atomic<bool> cancel{false};
  SearchOptions options;
  options.cancel = &cancel;
  options.on_progress = [&](const SearchProgress& p) {
    if (p.evaluated == 5) cancel = true;
  };
  const SearchResult r = search(line(40), falling, options);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.evaluated, 5u);
  EXPECT_EQ(r.best, (Config{{"x", 4}}));
  EXPECT_EQ(r.best_seconds, 96.0);
}

TEST(SearchLimits, CancelledDuringSuccessiveHalvingKeepsTheBestSoFar) {
  std::atomic<bool> cancel{false};
  SearchOptions options;
  options.cancel = &cancel;
  options.samples = 100;
  std::optional<Config> best_at_cancel;
  options.on_progress = [&](const SearchProgress& p) {
    if (p.evaluated == 70) {  // inside the first round (100 samples)
      cancel = true;
      best_at_cancel = p.best;
    }
  };
  const SearchResult r = search(line(1000), falling, options);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.evaluated, 70u);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.best, best_at_cancel);
}

TEST(SearchLimits, BudgetIsRespected) {
  SearchOptions options;
  options.budget_seconds = 0.1;
  auto slow = [](const Config& c, int repetitions) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return falling(c, repetitions);
  };
  const auto start = std::chrono::steady_clock::now();
  const SearchResult r = search(line(40), slow, options);  // 40 x 20 ms would take 0.8 s
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(r.complete);
  EXPECT_GE(r.evaluated, 1u);
  EXPECT_LE(r.evaluated, 6u);  // 0.1 s of 20 ms measurements, plus the one that crosses the budget
  EXPECT_GE(r.elapsed_seconds, 0.1);
  EXPECT_LT(wall, 0.4);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.best->at("x"), static_cast<std::int64_t>(r.evaluated) - 1);
}

TEST(SearchLimits, ZeroBudgetMeasuresNothing) {
  SearchOptions options;
  options.budget_seconds = 0;
  const SearchResult r = search(line(4), falling, options);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.evaluated, 0u);
  EXPECT_FALSE(r.best);
}

TEST(SearchLimits, ProgressAfterEveryEvaluation) {
  std::vector<SearchProgress> reports;
  SearchOptions options;
  options.on_progress = [&](const SearchProgress& p) { reports.push_back(p); };
  const SearchResult r = search(line(10), falling, options);
  ASSERT_EQ(reports.size(), 10u);
  for (std::size_t i = 0; i < reports.size(); ++i) {
    EXPECT_EQ(reports[i].evaluated, i + 1);
    EXPECT_EQ(reports[i].planned, 10u);
    ASSERT_TRUE(reports[i].best);
    EXPECT_EQ(reports[i].best->at("x"), static_cast<std::int64_t>(i));
    EXPECT_EQ(reports[i].best_seconds, 100.0 - static_cast<double>(i));
    if (i > 0) {
      EXPECT_GE(reports[i].elapsed_seconds, reports[i - 1].elapsed_seconds);
    }
  }
  EXPECT_LE(reports.back().elapsed_seconds, r.elapsed_seconds);
}

TEST(SearchLimits, ProgressPlansSuccessiveHalvingRounds) {
  SearchOptions options;
  options.samples = 10;
  std::uint64_t planned = 0, last = 0;
  options.on_progress = [&](const SearchProgress& p) {
    planned = p.planned;
    last = p.evaluated;
  };
  search(line(1000), falling, options);
  EXPECT_EQ(planned, 10u + 5 + 2);
  EXPECT_EQ(last, planned);
}

}  // namespace
}  // namespace kiln::autotune

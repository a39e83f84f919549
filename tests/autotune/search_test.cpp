// search() on synthetic cost surfaces with a known optimum: exhaustive and successive
// halving find it, invalid candidates never win, seeds come first.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "autotune/search.h"

namespace kiln::autotune {
namespace {

// cost = (a-5)^2 + (b-3)^2 + 1: one optimum, a=5 b=3, cost 1.
double bowl(const Config& c) {
  const double a = static_cast<double>(c.at("a")) - 5, b = static_cast<double>(c.at("b")) - 3;
  return a * a + b * b + 1;
}

ConfigSpace grid(std::int64_t n) {
  std::vector<std::int64_t> values;
  for (std::int64_t v = 0; v < n; ++v) values.push_back(v);
  ConfigSpace space;
  space.add("a", values).add("b", values);
  return space;
}

// Records every call, so tests can check what search() asked for.
struct Recorder {
  std::vector<std::pair<Config, int>> calls;
  MeasureFn fn(std::function<std::optional<double>(const Config&, int)> cost) {
    return [this, cost](const Config& c, int repetitions) {
      calls.emplace_back(c, repetitions);
      return cost(c, repetitions);
    };
  }
};

TEST(Search, ExhaustiveMeasuresEveryConfigOnceAndFindsTheOptimum) {
  const ConfigSpace space = grid(6);  // 36 configs <= exhaustive_limit
  Recorder rec;
  const SearchResult r = search(space, rec.fn([](const Config& c, int) { return bowl(c); }));
  ASSERT_TRUE(r.best);
  EXPECT_EQ(*r.best, (Config{{"a", 5}, {"b", 3}}));
  EXPECT_EQ(r.best_seconds, 1.0);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.evaluated, 36u);
  std::set<Config> seen;
  for (const auto& [config, repetitions] : rec.calls) {
    EXPECT_TRUE(seen.insert(config).second) << to_string(config) << " measured twice";
    EXPECT_EQ(repetitions, SearchOptions{}.max_repetitions);
  }
  EXPECT_EQ(seen.size(), 36u);
}

TEST(Search, ExhaustiveMeasuresSeedsFirstWithoutRepeatingThem) {
  const ConfigSpace space = grid(6);
  SearchOptions options;
  options.seeds = {{{"a", 2}, {"b", 2}}, {{"a", 0}, {"b", 4}}, {{"a", 2}, {"b", 2}}, {{"a", 99}, {"b", 0}}};
  Recorder rec;
  const SearchResult r = search(space, rec.fn([](const Config& c, int) { return bowl(c); }), options);
  ASSERT_EQ(rec.calls.size(), 36u);  // the repeated seed and the one outside the space add nothing
  EXPECT_EQ(rec.calls[0].first, options.seeds[0]);
  EXPECT_EQ(rec.calls[1].first, options.seeds[1]);
  ASSERT_EQ(r.seed_seconds.size(), 4u);
  EXPECT_EQ(r.seed_seconds[0], 1 + 9 + 1);
  EXPECT_EQ(r.seed_seconds[1], 25 + 1 + 1);
  EXPECT_EQ(r.seed_seconds[2], 1 + 9 + 1);
  EXPECT_EQ(r.seed_seconds[3], std::nullopt);
}

TEST(Search, TiesGoToTheSeed) {
  const ConfigSpace space = grid(4);
  SearchOptions options;
  options.seeds = {{{"a", 3}, {"b", 1}}};
  const SearchResult r = search(space, [](const Config&, int) { return std::optional<double>(2.0); }, options);
  EXPECT_EQ(r.best, options.seeds[0]);
}

TEST(Search, InvalidCandidatesNeverWinEvenWhenCheaper) {
  // The bowl's centre (cost < 6) is "invalid": wrong results measured as very fast.
  auto cost = [](const Config& c, int) -> std::optional<double> {
    return bowl(c) < 6 ? std::nullopt : std::optional<double>(bowl(c));
  };
  for (std::int64_t n : {6, 40}) {  // exhaustive, then successive halving
    SearchOptions options;
    options.samples = 2000;  // every config of the 40x40 grid
    const SearchResult r = search(grid(n), cost, options);
    ASSERT_TRUE(r.best) << n;
    EXPECT_EQ(r.best_seconds, 6.0) << n;  // (a-5)^2 + (b-3)^2 == 5 is the cheapest valid ring
    EXPECT_EQ(bowl(*r.best), 6.0) << to_string(*r.best);
  }
}

TEST(Search, NothingValidLeavesBestEmpty) {
  const SearchResult r = search(grid(3), [](const Config&, int) { return std::optional<double>(); });
  EXPECT_FALSE(r.best);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.evaluated, 9u);
}

TEST(Search, SuccessiveHalvingFindsTheOptimumOfALargeSpace) {
  const ConfigSpace space = grid(12);  // 144 configs > exhaustive_limit
  SearchOptions options;
  options.samples = 200;  // more than the space: every config, in a shuffled order
  Recorder rec;
  const SearchResult r = search(space, rec.fn([](const Config& c, int) { return bowl(c); }), options);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(*r.best, (Config{{"a", 5}, {"b", 3}}));
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.evaluated, 144u + 72 + 36 + 18 + 9 + 4 + 2);
}

TEST(Search, SuccessiveHalvingKeepsTheBestSampleAndGrowsRepetitions) {
  const ConfigSpace space = grid(40);  // 1600 configs
  // Measurements get more precise with repetitions: the error term 1/repetitions shrinks.
  auto cost = [](const Config& c, int repetitions) { return std::optional<double>(bowl(c) + 1.0 / repetitions); };
  Recorder rec;
  const SearchResult r = search(space, rec.fn(cost));  // 64 samples, repetitions 1, 2, 4, 7, 7, 7
  ASSERT_EQ(rec.calls.size(), 64u + 32 + 16 + 8 + 4 + 2);
  std::set<Config> first_round;
  double cheapest = 1e300;
  for (std::size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(rec.calls[i].second, 1);
    first_round.insert(rec.calls[i].first);
    cheapest = std::min(cheapest, bowl(rec.calls[i].first));
  }
  EXPECT_EQ(first_round.size(), 64u) << "samples must be distinct";
  const std::vector<int> per_round = {1, 2, 4, 7, 7, 7};
  std::size_t at = 0, round = 0;
  for (std::size_t n = 64; n >= 2; n /= 2, ++round) {
    for (std::size_t k = 0; k < n; ++k) EXPECT_EQ(rec.calls[at + k].second, per_round[round]) << at + k;
    at += n;
  }
  ASSERT_TRUE(r.best);
  EXPECT_EQ(bowl(*r.best), cheapest) << "the sample's optimum survives every halving";
  EXPECT_DOUBLE_EQ(r.best_seconds, cheapest + 1.0 / 7) << "from the most precise measurement";
  // Deterministic through the seed: a second search asks for the same configs.
  Recorder again;
  search(space, again.fn(cost));
  EXPECT_EQ(again.calls, rec.calls);
}

TEST(Search, SuccessiveHalvingMeasuresSeedsFirst) {
  const ConfigSpace space = grid(40);
  SearchOptions options;
  options.samples = 8;
  options.seeds = {{{"a", 39}, {"b", 39}}, {{"a", 5}, {"b", 3}}};
  Recorder rec;
  const SearchResult r = search(space, rec.fn([](const Config& c, int) { return bowl(c); }), options);
  ASSERT_GE(rec.calls.size(), 10u);
  EXPECT_EQ(rec.calls[0].first, options.seeds[0]);
  EXPECT_EQ(rec.calls[1].first, options.seeds[1]);
  EXPECT_EQ(r.best, options.seeds[1]);
  EXPECT_EQ(r.evaluated, 10u + 5 + 2);
  ASSERT_EQ(r.seed_seconds.size(), 2u);
  EXPECT_EQ(r.seed_seconds[0], bowl(options.seeds[0]));  // measured once, then halved away
  EXPECT_EQ(r.seed_seconds[1], 1.0);
}

}  // namespace
}  // namespace kiln::autotune

// The bookkeeping one search() call shares between its strategies: the candidates,
// their latest measurements, the budget and cancel checks, and progress reports.
// Kept apart from search.cpp so the strategies read as the algorithm only.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <vector>

#include "autotune/search.h"

namespace kiln::autotune::detail {

class SearchRun {
 public:
  /// Starts the clock and adds options.seeds that lie in the space as the first candidates.
  SearchRun(const ConfigSpace& space, const MeasureFn& measure, const SearchOptions& options);

  /// Adds a candidate unless it is already one; returns whether it was added.
  bool add(const Config& config);
  std::size_t count() const { return candidates_.size(); }

  void set_planned(std::uint64_t planned) { planned_ = planned; }

  /// False once the budget is spent or cancel is set: the caller must stop measuring.
  bool may_continue() const;

  /// Measures candidate i with `repetitions`; returns its seconds, nullopt when invalid
  /// (an invalid candidate is out of the race from then on).
  std::optional<double> evaluate(std::size_t i, int repetitions);

  /// Takes candidate i out of the race (successive halving dropped it).
  void eliminate(std::size_t i) { out_[i] = true; }

  /// The best candidate still in the race by latest measurement (ties: lower index).
  SearchResult finish(bool complete) const;

 private:
  std::optional<std::size_t> best() const;
  double elapsed() const;

  const MeasureFn& measure_;
  const SearchOptions& options_;
  std::chrono::steady_clock::time_point start_;
  std::vector<Config> candidates_;
  std::set<Config> known_;
  std::vector<std::optional<double>> latest_;  // latest measurement per candidate
  std::vector<bool> out_;                      // invalid or eliminated
  std::vector<std::optional<std::size_t>> seed_index_;  // per options.seeds entry
  std::uint64_t evaluated_ = 0, planned_ = 0;
};

}  // namespace kiln::autotune::detail

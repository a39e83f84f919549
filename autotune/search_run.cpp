// SearchRun: see search_run.h.
#include "autotune/search_run.h"

#include <algorithm>

namespace kiln::autotune::detail {

SearchRun::SearchRun(const ConfigSpace& space, const MeasureFn& measure, const SearchOptions& options)
    : measure_(measure), options_(options), start_(std::chrono::steady_clock::now()) {
  for (const Config& seed : options.seeds) {
    if (!space.contains(seed)) {
      seed_index_.push_back(std::nullopt);
      continue;
    }
    add(seed);
    const auto it = std::find(candidates_.begin(), candidates_.end(), seed);
    seed_index_.push_back(static_cast<std::size_t>(it - candidates_.begin()));
  }
}

bool SearchRun::add(const Config& config) {
  if (!known_.insert(config).second) return false;
  candidates_.push_back(config);
  latest_.push_back(std::nullopt);
  out_.push_back(false);
  return true;
}

double SearchRun::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

bool SearchRun::may_continue() const {
  if (options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed)) return false;
  return elapsed() < options_.budget_seconds;
}

std::optional<double> SearchRun::evaluate(std::size_t i, int repetitions) {
  const std::optional<double> seconds = measure_(candidates_[i], repetitions);
  latest_[i] = seconds;
  if (!seconds) out_[i] = true;
  ++evaluated_;
  if (options_.on_progress) {
    const std::optional<std::size_t> b = best();
    options_.on_progress(SearchProgress{evaluated_, planned_, elapsed(),
                                        b ? std::optional<Config>(candidates_[*b]) : std::nullopt,
                                        b ? *latest_[*b] : 0.0});
  }
  return seconds;
}

std::optional<std::size_t> SearchRun::best() const {
  std::optional<std::size_t> b;
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    if (out_[i] || !latest_[i]) continue;
    if (!b || *latest_[i] < *latest_[*b]) b = i;
  }
  return b;
}

SearchResult SearchRun::finish(bool complete) const {
  SearchResult result;
  if (const std::optional<std::size_t> b = best()) {
    result.best = candidates_[*b];
    result.best_seconds = *latest_[*b];
  }
  result.evaluated = evaluated_;
  result.elapsed_seconds = elapsed();
  result.complete = complete;
  for (const std::optional<std::size_t>& i : seed_index_) {
    result.seed_seconds.push_back(i ? latest_[*i] : std::nullopt);
  }
  return result;
}

}  // namespace kiln::autotune::detail

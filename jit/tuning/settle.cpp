#include "jit/tuning/settle.h"

#include <algorithm>
#include <ctime>
#include <vector>

#include "autotune/measure.h"
#include "jit/tuning/tuning_store.h"

namespace kiln::jit::tuning {

Settled settle_and_store(const std::string& key, const autotune::SearchResult& search,
                         const autotune::Config& best_point, const autotune::Config& heuristic_point,
                         const std::function<void()>& run_best, const std::function<void()>& run_heuristic) {
  std::vector<double> best_times, heuristic_times;
  for (int round = 0; round < 3; ++round) {
    heuristic_times.push_back(autotune::measure(run_heuristic, {1, 3, 1.0}).median_seconds);
    best_times.push_back(autotune::measure(run_best, {1, 3, 1.0}).median_seconds);
  }
  std::sort(best_times.begin(), best_times.end());
  std::sort(heuristic_times.begin(), heuristic_times.end());
  Settled settled;
  settled.heuristic_seconds = heuristic_times[1];
  settled.heuristic_won = best_times[1] >= settled.heuristic_seconds;
  settled.best_seconds = settled.heuristic_won ? settled.heuristic_seconds : best_times[1];
  if (std::shared_ptr<autotune::TuningDb> db = tuning_db()) {
    db->store(key, {.config = settled.heuristic_won ? heuristic_point : best_point,
                    .seconds = settled.best_seconds,
                    .default_seconds = settled.heuristic_seconds,
                    .tuning_seconds = search.elapsed_seconds,
                    .evaluated = search.evaluated,
                    .tuned_at = static_cast<std::int64_t>(std::time(nullptr))});
    bump_tuning_generation();
    settled.stored = true;
  }
  return settled;
}

}  // namespace kiln::jit::tuning

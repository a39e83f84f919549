// search(): the two strategies (exhaustive, successive halving). The bookkeeping
// they share (budget, cancel, progress, best so far) is in search_run.h.
#include "autotune/search.h"

#include <algorithm>
#include <numeric>

#include "autotune/search_run.h"

namespace kiln::autotune {
namespace {

using detail::SearchRun;

SearchResult exhaustive(const ConfigSpace& space, SearchRun& run, int repetitions) {
  for (std::uint64_t index = 0; index < space.size(); ++index) run.add(space.at(index));
  run.set_planned(run.count());
  for (std::size_t i = 0; i < run.count(); ++i) {
    if (!run.may_continue()) return run.finish(false);
    run.evaluate(i, repetitions);
  }
  return run.finish(true);
}

// Adds `samples` distinct random configs besides the seeds (fewer if the space has
// no more). A space not much larger than that is shuffled instead of sampled, so that
// drawing never waits long for a config not yet taken.
void draw_samples(const ConfigSpace& space, SearchRun& run, std::uint64_t samples, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::uint64_t size = space.size();
  const std::uint64_t target = run.count() + std::min<std::uint64_t>(samples, size - run.count());
  if (size / 2 <= target) {
    std::vector<std::uint64_t> order(size);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t k = 0; k < order.size() && run.count() < target; ++k) run.add(space.at(order[k]));
    return;
  }
  while (run.count() < target) run.add(space.sample(rng));
}

std::uint64_t halving_plan(std::uint64_t n) {
  std::uint64_t planned = n;
  for (; n / 2 >= 2; n /= 2) planned += n / 2;
  return planned;
}

SearchResult successive_halving(const ConfigSpace& space, SearchRun& run, const SearchOptions& options,
                                int min_repetitions, int max_repetitions) {
  draw_samples(space, run, options.samples, options.seed);
  run.set_planned(halving_plan(run.count()));
  std::vector<std::size_t> alive(run.count());
  std::iota(alive.begin(), alive.end(), 0);
  std::vector<std::optional<double>> seconds(run.count());
  for (int repetitions = min_repetitions;; repetitions = std::min(2 * repetitions, max_repetitions)) {
    for (std::size_t i : alive) {
      if (!run.may_continue()) return run.finish(false);
      seconds[i] = run.evaluate(i, repetitions);
    }
    std::erase_if(alive, [&](std::size_t i) { return !seconds[i]; });
    if (alive.size() <= 1) break;
    std::sort(alive.begin(), alive.end(), [&](std::size_t a, std::size_t b) {
      return *seconds[a] != *seconds[b] ? *seconds[a] < *seconds[b] : a < b;
    });
    for (std::size_t k = alive.size() / 2; k < alive.size(); ++k) run.eliminate(alive[k]);
    alive.resize(alive.size() / 2);
    if (alive.size() == 1) break;
  }
  return run.finish(true);
}

}  // namespace

SearchResult search(const ConfigSpace& space, const MeasureFn& measure, const SearchOptions& options) {
  SearchRun run(space, measure, options);
  const int min_repetitions = std::max(options.min_repetitions, 1);
  const int max_repetitions = std::max(options.max_repetitions, min_repetitions);
  if (space.size() <= options.exhaustive_limit) return exhaustive(space, run, max_repetitions);
  return successive_halving(space, run, options, min_repetitions, max_repetitions);
}

}  // namespace kiln::autotune

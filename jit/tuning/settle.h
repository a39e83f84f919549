// The end every tuning run shares (the GEMM family, the fused-kernel
// family): the search's winner against the heuristic, timed alternately so
// that both see the same machine, and the result stored.
#pragma once

#include <functional>
#include <string>

#include "autotune/config_space.h"
#include "autotune/search.h"

namespace kiln::jit::tuning {

struct Settled {
  bool heuristic_won = false;    // the winner was not faster: the heuristic is what was stored
  double best_seconds = 0;       // of what won (the heuristic's when it did)
  double heuristic_seconds = 0;
  bool stored = false;           // written to the database (there is one)
};

/// Times `run_best` and `run_heuristic` alternately (3 rounds of 3, the
/// middle of each), keeps the heuristic unless the winner is faster, and
/// stores the result under `key` with the search's statistics when there is
/// a database (bumping the tuning generation).
Settled settle_and_store(const std::string& key, const autotune::SearchResult& search,
                         const autotune::Config& best_point, const autotune::Config& heuristic_point,
                         const std::function<void()>& run_best, const std::function<void()>& run_heuristic);

/// settle_and_store for a family's result (its key, search, best,
/// best_point, heuristic_point, best_seconds, heuristic_seconds, stored):
/// `run(choice)` runs a candidate; `heuristic` replaces the winner when it
/// is not faster.
template <class Result, class Choice, class Run>
void settle(Result& result, const Choice& heuristic, Run&& run) {
  const Choice best = result.best;
  const Settled settled = settle_and_store(result.key, result.search, result.best_point, result.heuristic_point,
                                           [&] { run(best); }, [&] { run(heuristic); });
  if (settled.heuristic_won) {
    result.best = heuristic;
    result.best_point = result.heuristic_point;
  }
  result.best_seconds = settled.best_seconds;
  result.heuristic_seconds = settled.heuristic_seconds;
  result.stored = settled.stored;
}

}  // namespace kiln::jit::tuning

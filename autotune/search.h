// Search over a ConfigSpace for the fastest config, given a measure callback.
//
// The tuner never builds a candidate itself (DESIGN.md): the caller's MeasureFn
// builds, checks and times it. Small spaces are searched exhaustively; larger
// ones by successive halving over a random sample, which spends cheap
// measurements on many candidates and precise ones on the few that survive.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "autotune/config_space.h"

namespace kiln::autotune {

/// The cost of one candidate: seconds (lower is better), or nullopt when the candidate is
/// invalid or its result differs from the reference (it can never win). `repetitions` lets
/// successive halving ask for cheap early estimates and precise late ones.
using MeasureFn = std::function<std::optional<double>(const Config&, int repetitions)>;

struct SearchProgress {
  std::uint64_t evaluated, planned;  // measurements made / planned (planned assumes every candidate valid)
  double elapsed_seconds;
  std::optional<Config> best;        // the best so far, if any valid candidate was measured
  double best_seconds;
};

struct SearchOptions {
  double budget_seconds = 10;                    // wall-clock budget for the whole search
  std::uint64_t exhaustive_limit = 48;           // spaces up to this size are searched exhaustively
  std::uint64_t samples = 64;                    // larger spaces: this many random distinct configs ...
  int min_repetitions = 1, max_repetitions = 7;  // ... halved by successive halving, repetitions growing per round
  std::uint64_t seed = 0x6b696c6e;
  std::vector<Config> seeds;                     // always evaluated first (e.g. the heuristic default);
                                                 // seeds outside the space are skipped
  std::function<void(const SearchProgress&)> on_progress;  // after every evaluation
  const std::atomic<bool>* cancel = nullptr;     // checked between evaluations
};

struct SearchResult {
  std::optional<Config> best;  // empty when nothing valid was found
  double best_seconds = 0;     // the winner's most precise measurement
  std::uint64_t evaluated = 0;
  double elapsed_seconds = 0;
  bool complete = false;       // false when budget or cancel cut it short
  /// Per entry of SearchOptions::seeds, its most precise measurement; nullopt when it was
  /// invalid, outside the space, or not measured before the search stopped.
  std::vector<std::optional<double>> seed_seconds;
};

/// Exhaustive when space.size() <= exhaustive_limit: every config once with max_repetitions,
/// seeds first, no config twice. Otherwise successive halving: seeds plus `samples` distinct
/// random configs, all measured with min_repetitions; the best half is kept and measured again
/// with twice the repetitions (capped at max_repetitions) until one remains. Invalid candidates
/// drop out at once. Ties go to the earlier candidate (seeds first). When the budget is spent
/// or cancel is set, returns the best so far with complete = false.
SearchResult search(const ConfigSpace& space, const MeasureFn& measure, const SearchOptions& options = {});

}  // namespace kiln::autotune

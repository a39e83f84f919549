// Whether compiling a segment key has paid off: the time its compiled runs
// saved against what the same runs would have cost on tier 0, minus the
// time spent compiling it. Shown per key by kiln::print_stats() and by the
// `kiln stat` dashboard (which reads the same fields from the snapshot).
#pragma once

#include <cstdint>

namespace kiln {

/// The numbers of one key the payoff is computed from (KeyStats fields, or
/// the snapshot's top_keys entries).
struct KeyRuns {
  std::uint64_t runs_tier0 = 0, runs_tier1 = 0;
  double tier0_ms = 0, tier1_ms = 0, compile_ms = 0;

  /// Tier-1 runs x (mean tier-0 run - mean tier-1 run) - compile time, in
  /// ms; negative while compiling has not yet paid for itself. 0 without a
  /// run on each tier (nothing to compare).
  double payoff_ms() const {
    if (runs_tier0 == 0 || runs_tier1 == 0) return 0;
    return double(runs_tier1) * saved_per_run_ms() - compile_ms;
  }

  /// Tier-1 runs after which the compile time is repaid (the break-even
  /// point), or -1 when a tier-1 run is not faster or a tier has no run.
  double break_even_runs() const {
    if (runs_tier0 == 0 || runs_tier1 == 0 || saved_per_run_ms() <= 0) return -1;
    return compile_ms / saved_per_run_ms();
  }

 private:
  double saved_per_run_ms() const { return tier0_ms / double(runs_tier0) - tier1_ms / double(runs_tier1); }
};

}  // namespace kiln

// The timing harness: runs a candidate a few times and reports a robust time.
//
// One slow repetition (a page fault, a context switch, another build on the
// machine) must not decide a search, so samples far above the median are dropped
// before the median is taken.
#pragma once

#include <functional>
#include <vector>

namespace kiln::autotune {

struct MeasureOptions {
  int warmup = 2;            // untimed runs first (caches, page faults, lazy init)
  int repetitions = 7;       // timed runs at most
  double max_seconds = 1.0;  // stop timing once this much wall time (warmup included) is spent
};

struct Timing {
  double median_seconds;  // median of the kept samples
  double spread;          // (max - min) / median of the kept samples; 0 when the median is 0
  int kept;               // samples left after outlier rejection
  int taken;              // timed runs made
};

/// Runs `run` options.warmup times untimed, then up to options.repetitions times timed
/// (std::chrono::steady_clock), stopping early once options.max_seconds is spent (at least
/// one timed run is made), and returns summarize() of the samples.
Timing measure(const std::function<void()>& run, const MeasureOptions& options = {});

/// Outlier rejection and the median: drops samples beyond median + 3 * MAD (the median
/// absolute deviation, floored at 1% of the median) and summarizes the rest.
/// `seconds` must not be empty.
Timing summarize(std::vector<double> seconds);

}  // namespace kiln::autotune

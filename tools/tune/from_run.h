// The kernels `kiln tune --from STATS.json` tunes: the hot tunable kernels
// a recorded run used, read from its stats snapshot (the `tunables` array,
// docs/stats-schema.md).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <kiln/tune.h>

namespace kiln::tools {

/// A kernel of the run, to be tuned with the threads it ran on.
struct RunKernel {
  kiln::tune::Target target;
  int threads = 0;
  std::string key;  // the run's tuning key
  double total_ms = 0;
};

struct RunKernels {
  std::string error;               // the snapshot cannot be used (then nothing else is set)
  std::string summary;             // "2 of 3 kernels, 97% of the run's tunable time"
  std::vector<RunKernel> chosen;   // most time first
  std::vector<std::string> skipped;  // "linear 64x64x64: already in the database", ...
};

/// The run's kernels worth tuning from the snapshot at `path`: most time
/// first, at most `top`, none under 1% of the run's tunable time, none
/// whose key is in `tuned_keys` (the database has it) and none that
/// `kiln tune` has no kernel for.
RunKernels kernels_of_run(const std::string& path, std::size_t top, const std::vector<std::string>& tuned_keys);

}  // namespace kiln::tools

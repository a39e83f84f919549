// Which tier one run of a chain took, read from the JIT's own counters and
// records (private headers: this program is a test). kiln::stats() would
// say as much, but it also walks the profiler's record of every key seen,
// which costs more the longer the soak runs.
#pragma once

#include <functional>

namespace soak {

enum class RunTier {
  Compiled,     // every fused group of the run ran compiled code
  Demoted,      // a kernel of its key was compiled and then retired as slower than tier 0
  Interpreted,  // anything else: no JIT record yet, not hot yet, compiling, or evicted
};

/// Calls `run` (one chain run on this thread) and says how it ran.
RunTier run_and_classify(const std::function<void()>& run);

}  // namespace soak

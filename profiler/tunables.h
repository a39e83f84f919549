// Runs of tunable kernels (GEMM products, compiled sums, row and elementwise
// kernels), by tuning key: how often and how
// long each ran and where its config came from. Read into
// kiln::Stats::tunables: what `kiln tune --from STATS.json` tunes and what
// `kiln stat` shows of tuning.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <kiln/profiler/stats.h>

namespace kiln::profiler {

/// One call of a tunable kernel.
struct TunableRun {
  std::string_view key;     // the tuning database's key
  std::string_view target;  // the `kiln tune` target reproducing it, or empty
  std::uint32_t threads = 0;
  const char* config = "heuristic";  // a string literal: "heuristic", "database" or "online"
  std::int64_t nanoseconds = 0;
};

/// Counts the call (nothing when the profiler is off). Any thread.
void note_tunable_run(const TunableRun& run) noexcept;

/// The keys with calls, most time first, at most `limit`.
std::vector<TunableStats> tunable_stats(std::size_t limit);

/// Zeroes the counts (the keys stay).
void reset_tunables() noexcept;

}  // namespace kiln::profiler

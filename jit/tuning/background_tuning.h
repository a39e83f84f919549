// What every online tuning (KILN_AUTOTUNE=online) does around its search,
// whichever family it tunes: it runs as a job of the JIT's compile queue,
// counted in `jit.tunes_in_flight` meanwhile, and its end is counted
// (`jit.tunes_done`) and logged as a `tuned` event with its span.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace kiln::jit::tuning {

/// Runs `tuning` after the compiles queued before it (run_in_background),
/// counted as a tuning in flight until it returns or throws; what it
/// throws is recorded as a JIT failure (kiln::stats().jit.recent_failures).
void tune_in_background(std::function<void()> tuning);

/// Counts a finished tuning of `key` begun at `start_ns` (profiler::now_ns)
/// and logs it: "<key>: <default> -> <tuned> ms".
void note_tuned(const std::string& key, double default_seconds, double tuned_seconds, std::int64_t start_ns);

}  // namespace kiln::jit::tuning

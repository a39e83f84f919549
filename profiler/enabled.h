// Whether the profiler collects anything beyond the JIT's counters.
//
// On by default; KILN_PROFILE=0 turns off per-key records, cut sites, call
// sites, the event log and the timeline (the baseline the profiler's cost is
// measured against).
#pragma once

#include <atomic>
#include <cstdint>

namespace kiln::profiler {

namespace detail {
extern std::atomic<bool> g_enabled;
}

inline bool enabled() noexcept { return detail::g_enabled.load(std::memory_order_relaxed); }
/// Overrides KILN_PROFILE (kiln::set_profiling).
void set_enabled(bool on) noexcept;

/// Nanoseconds on the steady clock, the time base of every profiler record.
std::int64_t now_ns() noexcept;
/// now_ns() when the profiler started: time zero of the event log and the timeline.
std::int64_t start_ns() noexcept;

/// The calling thread's OS id (cached).
std::uint64_t thread_id() noexcept;

}  // namespace kiln::profiler

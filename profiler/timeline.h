// The timeline: a Chrome trace-event JSON file (KILN_TRACE_EVENTS=path) that
// Perfetto and chrome://tracing open. One complete ("X") span per segment
// run on the thread that ran it, named by its key and categorized by tier;
// compile spans on the compile threads; swaps, demotions, failures,
// evictions and the other events as instant ("i") events.
//
// Written incrementally through a buffer under a mutex (only when a file is
// open: the closed case is one relaxed load). The file is a JSON array,
// closed at exit, from std::terminate (an uncaught exception), on SIGINT and
// SIGTERM (profiler/termination_signals.h) and by close_timeline(); a program
// killed outright (SIGKILL, a crash) leaves the array unterminated, which the
// trace-event format accepts.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "profiler/counters.h"
#include "profiler/events.h"

namespace kiln::profiler {

namespace detail {
extern std::atomic<bool> g_timeline_open;
}
inline bool timeline_open() noexcept { return detail::g_timeline_open.load(std::memory_order_relaxed); }

/// Starts writing to `path` (closing any open timeline first); false if the
/// file cannot be created. KILN_TRACE_EVENTS opens one when libkiln loads.
bool open_timeline(const std::string& path);
/// Terminates the JSON array and closes the file (idempotent).
void close_timeline() noexcept;

/// A segment's execution span (called by record_segment_run).
void timeline_segment(const SegmentRun& run) noexcept;
/// An event of the log, on `thread`.
void timeline_event(const Event& event, std::uint64_t thread) noexcept;

}  // namespace kiln::profiler

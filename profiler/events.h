// The event log: every decision the engine makes that changes how code runs
// (a new cut site, a new segment key, a compile queued, done, failed, a
// swap, a demotion, an eviction, a recompute). Events are rare -- per key,
// per compile, never per op or per repeated segment -- so the log is a small
// ring under a mutex. Each event also goes to the timeline when one is open.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <kiln/profiler/stats.h>

namespace kiln::profiler {

enum class EventKind : std::uint8_t {
  CutSite,     // a (reason, call site) cut the trace for the first time
  NewKey,      // first run of a segment key
  Queued,      // a kernel queued for compilation
  Compiled,    // a kernel's code published (detail: "O1", "O3", "disk cache")
  Swapped,     // new code published for a kernel that had code (a hot swap)
  Demoted,     // compiled code measured slower than tier 0 and retired
  Failed,      // a compile failed (detail: why); the kernel stays on tier 0
  Evicted,     // a buffer evicted under the memory budget
  Recomputed,  // an evicted buffer recomputed from its producer
  Tuned,       // a hot kernel tuned in the background (detail: its tuning key, default and tuned ms)
  Dropped,     // a queued compile dropped unrun: its kernel went cold (detail: "O1", "O3")
  kCount
};

/// "cut_site", "new_key", "queued", ... (EventStats::kind).
const char* to_string(EventKind kind) noexcept;

struct Event {
  EventKind kind = EventKind::CutSite;
  std::uint64_t key = 0;      // segment key (CutSite, NewKey) or kernel key
  std::string detail{};
  std::uint32_t site = 0;     // cut-site row (cut_sites.h), 0 if none
  std::int64_t start_ns = 0;  // on now_ns()'s clock; 0 = now
  std::int64_t duration_ns = 0;  // a span (a compile); 0 = instant
};

/// Appends `event` for the calling thread (no-op when the profiler is off).
void log_event(Event event) noexcept;

/// The last events, oldest first, with their call sites symbolized.
std::vector<EventStats> recent_events();
void reset_events() noexcept;

}  // namespace kiln::profiler

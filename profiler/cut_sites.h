// The places in the user's program that cut the trace into segments, with
// how often each did. One row per (reason, return address); the first
// sighting of a row is logged as an event. Symbolized only when read.
#pragma once

#include <cstdint>
#include <vector>

#include <kiln/profiler/stats.h>

#include "profiler/call_site.h"
#include "profiler/counters.h"

namespace kiln::profiler {

/// Counts a cut made now for `why` at the user's frame (call_site.h) and
/// returns the id of its row (0 when the profiler is off). Once per cut.
std::uint32_t note_cut(CutReason why) noexcept;

/// A segment key cut at row `site` ran for the first time; `structure`
/// identifies it without its sizes (the JIT's shape-family key). Counts the
/// row's new keys and those whose structure differs from the previous new
/// key's there (why the key keeps changing). Once per new key.
void note_new_key(std::uint32_t site, std::uint64_t structure) noexcept;

/// The symbolized call site of row `site` (cached after the first call).
SourceLocation site_location(std::uint32_t site);

/// The rows with a count, most first, at most `limit`.
std::vector<CutSiteStats> cut_site_stats(std::size_t limit);

/// Zeroes the counts (the rows and their symbols stay).
void reset_cut_sites() noexcept;

}  // namespace kiln::profiler

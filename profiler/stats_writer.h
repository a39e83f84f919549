// The stats snapshot writer: a background thread that writes the JSON
// snapshot (profiler/stats_json.h) to a file every interval and once more
// at exit or on SIGINT / SIGTERM (profiler/termination_signals.h), each time
// to a temporary file renamed over the target, so a reader sees the previous
// snapshot or the new one, never a partial file.
//
// The profiler cannot assemble the whole kiln::Stats (the memory fields come
// from the allocator, a layer above it): the frontend passes a source.
#pragma once

#include <cstdint>
#include <string>

#include <kiln/profiler/stats.h>

namespace kiln::profiler {

using StatsSource = Stats (*)();

/// Writes `text` to `path` atomically (temporary file in the same directory,
/// then rename). Returns "" or what failed.
std::string write_file_atomically(const std::string& path, const std::string& text);

/// Writes one snapshot of source() to `path` now; returns "" or what failed.
/// `interval_ms` and `final` only go into the snapshot's header.
std::string write_stats_file(const std::string& path, StatsSource source, std::int64_t interval_ms, bool final);

/// Starts (or moves) the background writer: a snapshot every `interval_ms`
/// (>= 1) and a final one at exit. An empty path stops it after a last write.
/// A failed write is reported once on stderr and retried next interval.
void start_stats_writer(const std::string& path, std::int64_t interval_ms, StatsSource source);

/// Stops the writer, writing a final snapshot (also run at exit).
void stop_stats_writer();

}  // namespace kiln::profiler

// kiln's own controls: running pending work, counters; the knobs' setters
// are <kiln/settings.h>.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>

#include <kiln/profiler/stats.h>
#include <kiln/settings.h>

namespace kiln {

/// Runs every pending op of every thread. Optional: a program that never
/// calls it is still correct, since reading a value runs what it needs.
void sync();

/// The counters: ops recorded, segments run (by reason), distinct segment
/// keys and their runs, bytes allocated / live / peak, the budget.
Stats stats();
/// A report for people: where time went (tier 0, tier 1, compiling), where
/// the program cut the trace and from which line, which segments recur, what
/// failed to compile -- with advice such as "segment cut 10000 times by
/// item() at train.cpp:42: move it out of the loop". Also printed to stderr
/// at exit with KILN_REPORT=1. Not a stable format: tools read stats().
void print_stats(std::ostream& out);
/// print_stats to std::cerr.
void print_stats();
/// Zeroes the counters (not the memory accounting of live tensors).
void reset_stats();

/// Keeps a JSON snapshot of stats() in the file `path` for `kiln stat PATH`
/// and other tools: a background thread rewrites it every `interval_ms`
/// and once more at exit. Each write replaces the file atomically, so a
/// reader never sees half of one. The layout is docs/stats-schema.md.
/// An empty path stops the writer (after a last write). Also set by
/// KILN_STATS=path and KILN_STATS_INTERVAL_MS. Throws kiln::ValueError when
/// interval_ms < 1 or the file's directory does not exist.
void set_stats_path(const std::string& path, std::int64_t interval_ms = 500);
/// Writes one snapshot of stats() to `path` now (same format and atomicity).
/// Throws kiln::Error naming the path when it cannot be written.
void write_stats(const std::string& path);

namespace jit {
/// Blocks until no compile is queued or running.
void wait_for_compiles();
}  // namespace jit

}  // namespace kiln

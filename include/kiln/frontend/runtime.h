// kiln's own controls: running pending work, counters, limits.
#pragma once

#include <cstddef>
#include <cstdint>

#include <kiln/profiler/stats.h>

namespace kiln {

/// Runs every pending op of every thread. Optional: a program that never
/// calls it is still correct, since reading a value runs what it needs.
void sync();

/// The counters: ops recorded, segments run (by reason), distinct segment
/// keys and their runs, bytes allocated / live / peak, the budget.
Stats stats();
/// Zeroes the counters (not the memory accounting of live tensors).
void reset_stats();

/// Memory budget in bytes (0 = unlimited). An allocation past it throws
/// kiln::OutOfMemory with a report. Also set by KILN_MEMORY_BUDGET ("2G").
void set_memory_budget(std::size_t bytes);
/// Ops recorded before a segment is cut regardless (>= 1; KILN_TRACE_LIMIT).
void set_trace_limit(std::int64_t ops);
/// Threads that kernels use (>= 1; KILN_NUM_THREADS).
void set_num_threads(int n);
int get_num_threads();

}  // namespace kiln

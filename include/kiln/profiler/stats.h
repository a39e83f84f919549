// kiln::Stats: one snapshot of what the engine did, as plain numbers.
//
// This is what kiln::stats() returns and what the `kiln stat` dashboard and
// the demo print: how many ops were recorded and run, how the trace was cut
// into segments and why, which segments recur most (the candidates for
// compilation), and where memory went. Counters are cumulative since process
// start (or the last profiler reset) and are safe to read from any thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace kiln {

/// Number of reasons a segment is cut (the size of Stats::segments_by_reason).
inline constexpr std::size_t kNumCutReasons = 11;

/// One segment key (one recurring op structure and input signature).
struct KeyStats {
  std::uint64_t key = 0;
  std::uint64_t runs = 0;              // executions of this key
  std::uint32_t ops = 0;               // ops in the segment (run + eliminated), latest run
  double total_ms = 0;                 // wall time summed over all runs
  const char* first_reason = nullptr;  // why its first run was cut (Stats::reason_name)
  const char* last_reason = nullptr;   // why its latest run was cut
};

/// What the JIT did: compiles, swaps, demotions, cache hits, runs per tier.
struct JitStats {
  std::uint64_t compiles_requested = 0;
  std::uint64_t compiles_done = 0;
  std::uint64_t compiles_failed = 0;     // kernels left on tier 0 (see recent_failures)
  std::uint64_t compiles_in_flight = 0;  // queued or compiling now
  std::uint64_t demoted = 0;             // compiled code slower than tier 0, retired
  std::uint64_t hot_swaps = 0;           // code published while its kernel was in use
  std::uint64_t memory_cache_hits = 0;   // kernels found compiled already (shared by segments)
  std::uint64_t disk_cache_hits = 0;     // kernels loaded from KILN_CACHE_DIR
  std::uint64_t disk_cache_writes = 0;
  std::uint64_t group_runs_compiled = 0;     // fused groups run by compiled code (tier 1)
  std::uint64_t group_runs_interpreted = 0;  // fused groups run op by op (tier 0)
  std::uint64_t dynamic_compiles = 0;        // kernels compiled with run-time sizes (shapes that vary)
  double compile_ms_p50 = 0, compile_ms_p90 = 0, compile_ms_max = 0;
  double disk_load_ms_p50 = 0;
  std::vector<std::string> recent_failures;  // why compiles failed, newest last
};

struct Stats {
  // Filled by the profiler.
  std::uint64_t ops_recorded = 0;    // ops that reached a segment
  std::uint64_t ops_executed = 0;    // ops actually run
  std::uint64_t ops_eliminated = 0;  // dead ops never run (results nobody holds)
  std::uint64_t segments_run = 0;
  std::array<std::uint64_t, kNumCutReasons> segments_by_reason{};  // index with reason_name
  /// "item", "data_ptr", "to_vector", "print", "bool", "sync", "op_limit",
  /// "cross_thread", "thread_exit", "memory_pressure", "borrowed" for i = 0..10; "?" beyond.
  static const char* reason_name(std::size_t i);
  std::uint64_t distinct_keys = 0;
  std::vector<KeyStats> top_keys;       // most runs first (ties: smaller key), at most 16
  std::uint64_t intermediate_bytes = 0;  // bytes of temporaries allocated inside segments

  // Filled from the allocator (kiln::memory::stats()); see kiln/memory/memory.h.
  std::uint64_t allocations = 0;
  std::uint64_t pool_hits = 0;
  std::uint64_t bytes_allocated_total = 0;
  std::uint64_t live_bytes = 0;
  std::uint64_t peak_bytes = 0;
  std::uint64_t pooled_bytes = 0;
  std::uint64_t budget_bytes = 0;  // 0 = unlimited
  std::uint64_t oom_errors = 0;

  JitStats jit;
};

/// A compact multi-line table for people (the demo, logs); sizes in KiB/MiB.
/// Not a stable format: tools should read the fields.
std::ostream& operator<<(std::ostream& out, const Stats& stats);

}  // namespace kiln

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
  std::uint64_t runs = 0;              // executions of this key (runs_tier0 + runs_tier1)
  std::uint32_t ops = 0;               // ops in the segment (run + eliminated), latest run
  double total_ms = 0;                 // wall time summed over all runs (tier0_ms + tier1_ms)
  const char* first_reason = nullptr;  // why its first run was cut (Stats::reason_name)
  const char* last_reason = nullptr;   // why its latest run was cut
  std::uint64_t runs_tier0 = 0;        // runs with every op interpreted
  std::uint64_t runs_tier1 = 0;        // runs where at least one fused group ran compiled code
  double tier0_ms = 0;                 // wall time of the tier-0 runs
  double tier1_ms = 0;                 // wall time of the tier-1 runs
  std::uint64_t bytes = 0;             // temporaries allocated by its runs, summed
  /// Where its kernels are: "interpreted" (not planned, or nothing to fuse),
  /// "queued", "compiling", "compiled", "failed" or "demoted" (the least
  /// advanced of its kernels); "off" when the JIT is disabled.
  const char* state = "interpreted";
  std::uint32_t kernels = 0;  // fused kernels in its plan
  double compile_ms = 0;      // compile time of its kernels' published code, summed
  std::uint64_t deopts = 0;   // its kernels retired to tier 0 after compiling (demoted)
  /// The user's code that cut its first run: "file:line (function)" with debug
  /// info, else "function (object+0xoffset)" or "symbol+0xoffset (object)";
  /// empty when unknown.
  std::string call_site{};
};

/// Where the user's program cut the trace, and how often: one row per
/// (reason, calling instruction). The advice in print_stats() comes from here.
struct CutSiteStats {
  const char* reason = nullptr;  // Stats::reason_name of the cut
  std::uint64_t count = 0;       // segments cut here
  std::string call_site{};       // as KeyStats::call_site
  std::string function{};        // the user's function, if known
  std::string file{};            // its source file (path as compiled), empty without debug info
  std::uint32_t line = 0;        // 0 without debug info
};

/// One entry of the event log: a decision of the engine.
struct EventStats {
  /// "cut_site" (a new place cut the trace; detail = reason), "new_key" (first
  /// run of a segment key), "queued", "compiled" (detail = "O1", "O3" or "disk
  /// cache"), "swapped" (new code for a kernel in use), "demoted", "failed"
  /// (detail = why), "tuned" (a hot kernel tuned in the background; detail =
  /// "<tuning key>: <default> -> <tuned> ms"), "evicted", "recomputed"
  /// (reserved for the memory layer, which does not evict yet).
  const char* kind = nullptr;
  double time_ms = 0;      // since the process started profiling
  double duration_ms = 0;  // of a compile; 0 for instant events
  std::uint64_t thread = 0;  // OS thread id
  std::uint64_t key = 0;     // segment key (new_key), kernel key (compile events), 0 (cut_site)
  std::string detail{};      // as listed with `kind`; may be empty
  std::string call_site{};  // for cut_site and new_key events, as KeyStats::call_site
};

/// What the JIT did: compiles, swaps, demotions, cache hits, runs per tier.
struct JitStats {
  std::uint64_t compiles_requested = 0;
  std::uint64_t compiles_done = 0;
  std::uint64_t compiles_failed = 0;     // kernels left on tier 0 (see recent_failures)
  std::uint64_t compiles_timed_out = 0;  // given up past their time bound (KILN_COMPILE_TIMEOUT_MS)
  std::uint64_t compiles_dropped = 0;    // queued, then dropped unrun: their kernels went cold
  std::uint64_t keys_evicted = 0;        // segment keys' JIT records dropped, least recently run (KILN_JIT_MAX_KEYS)
  std::uint64_t kernels_evicted = 0;     // unused kernels dropped from the cache with their code (KILN_JIT_MAX_KERNELS)
  std::uint64_t kernels_resident = 0;    // kernel objects whose code is linked now
  std::uint64_t compiles_in_flight = 0;  // queued or compiling now
  std::uint64_t compiles_queued = 0;     // of those, waiting for the compile thread
  std::uint64_t demoted = 0;             // compiled code slower than tier 0, retired
  std::uint64_t hot_swaps = 0;           // code published while its kernel was in use
  std::uint64_t memory_cache_hits = 0;   // kernels found compiled already (shared by segments)
  std::uint64_t disk_cache_hits = 0;     // kernels loaded from KILN_CACHE_DIR
  std::uint64_t disk_cache_writes = 0;
  std::uint64_t group_runs_compiled = 0;     // fused groups run by compiled code (tier 1)
  std::uint64_t group_runs_interpreted = 0;  // fused groups run op by op (tier 0)
  std::uint64_t dynamic_compiles = 0;        // kernels compiled with run-time sizes (shapes that vary)
  std::uint64_t tunes_done = 0;              // hot kernels tuned while running (KILN_AUTOTUNE=online)
  std::uint64_t tunes_in_flight = 0;         // of those, being tuned now
  double compile_ms_p50 = 0, compile_ms_p90 = 0, compile_ms_p99 = 0, compile_ms_max = 0;
  double disk_load_ms_p50 = 0;
  std::vector<std::string> recent_failures;  // why compiles failed, newest last
};

/// A tunable kernel as this run used it: the GEMM products of one tuning
/// database key (a shape bucket), what `kiln tune --from STATS.json` tunes.
/// Products too small to be worth tuning (below 2^18 multiply-adds) are left out.
struct TunableStats {
  std::string key{};     // the tuning database's key, e.g. "gemm/f32/nt/t2/128x768x512"
  /// The `kiln tune` kernel and shape of the first product seen under the
  /// key, e.g. "linear 128x784x512"; empty when kiln tune has no kernel for it.
  std::string target{};
  std::uint32_t threads = 0;  // kernel threads it ran with (part of the key)
  std::uint64_t calls = 0;
  double total_ms = 0;   // wall time of its calls
  /// Where its config came from at the latest call: "heuristic" (nothing
  /// tuned), "database" (`kiln tune` or an earlier run) or "online"
  /// (tuned while this program ran, KILN_AUTOTUNE=online).
  const char* config = "heuristic";
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
  std::vector<CutSiteStats> cut_sites;   // most segments first, at most 32
  std::vector<EventStats> recent_events;  // oldest first, the last 64
  std::vector<TunableStats> tunables;     // most time first, at most 16
  bool profiling = true;                  // false with KILN_PROFILE=0: only memory and jit fields are kept

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

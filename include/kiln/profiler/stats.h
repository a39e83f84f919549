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

#include <kiln/profiler/counter_list.h>

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
  /// Segment keys first seen here (with the JIT on), and how many of those
  /// had another op structure than the new key before them (ops, dtypes or
  /// attributes changed) rather than only other sizes. Many new keys for
  /// the cuts is a recompile storm: little recurs, so little is compiled.
  std::uint64_t new_keys = 0;
  std::uint64_t new_structures = 0;
};

/// One entry of the event log: a decision of the engine.
struct EventStats {
  /// "cut_site" (a new place cut the trace; detail = reason), "new_key" (first
  /// run of a segment key), "queued", "compiled" (detail = "O1", "O3" or "disk
  /// cache"), "swapped" (new code for a kernel in use), "demoted", "failed"
  /// (detail = why), "tuned" (a hot kernel tuned in the background; detail =
  /// "<tuning key>: <default> -> <tuned> ms"), "evicted", "recomputed"
  /// (under a memory budget; detail = size, dtype, shape and producer, e.g.
  /// "4.00 MiB Float [4096, 256] made by matmul").
  const char* kind = nullptr;
  double time_ms = 0;      // since the process started profiling
  double duration_ms = 0;  // of a compile; 0 for instant events
  std::uint64_t thread = 0;  // OS thread id
  std::uint64_t key = 0;     // segment key (new_key), kernel key (compile events), 0 (cut_site)
  std::string detail{};      // as listed with `kind`; may be empty
  std::string call_site{};  // for cut_site and new_key events, as KeyStats::call_site; evicted and recomputed: where the value was made
};

/// What the JIT did: compiles, swaps, demotions, cache hits, runs per tier.
/// The numbers are the KILN_JIT_* rows of <kiln/profiler/counters.def>, where
/// each is documented (and in docs/stats-schema.md).
struct JitStats {
#define KILN_JIT_COUNTER(name, type, unit, doc) type name = 0;
#include <kiln/profiler/counters.def>
  std::vector<std::string> recent_failures;  // why compiles failed, newest last
};

/// A tunable kernel as this run used it: the GEMM products, or the compiled
/// sums, row kernels (softmax) and elementwise kernels, of one tuning
/// database key (a shape bucket), what `kiln tune --from STATS.json` tunes.
/// Kernels too small to be worth tuning (below 2^18 multiply-adds, or
/// 2^18 elements) are left out.
struct TunableStats {
  std::string key{};     // the tuning database's key, e.g. "gemm/f32/nt/t2/128x768x512"
  /// The `kiln tune` kernel and shape of the first kernel seen under the
  /// key, e.g. "linear 128x784x512" or "softmax 4096x1024"; empty when kiln
  /// tune has no kernel for it.
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
  /// The counters: the KILN_STATS_COUNTER rows of <kiln/profiler/counters.def>
  /// (ops_recorded, segments_run, live_bytes, ...), where each is documented.
  /// The profiler fills the first ones, the allocator (kiln::memory::stats())
  /// the memory ones.
#define KILN_STATS_COUNTER(name, type, unit, doc) type name = 0;
#include <kiln/profiler/counters.def>

  // Filled by the profiler.
  std::array<std::uint64_t, kNumCutReasons> segments_by_reason{};  // index with reason_name
  /// "item", "data_ptr", "to_vector", "print", "bool", "sync", "op_limit",
  /// "cross_thread", "thread_exit", "memory_pressure", "borrowed" for i = 0..10; "?" beyond.
  static const char* reason_name(std::size_t i);
  std::vector<KeyStats> top_keys;       // most runs first (ties: smaller key), at most 16
  std::vector<CutSiteStats> cut_sites;   // most segments first, at most 32
  std::vector<EventStats> recent_events;  // oldest first, the last 64
  std::vector<TunableStats> tunables;     // most time first, at most 16
  bool profiling = true;                  // false with KILN_PROFILE=0: only memory and jit fields are kept

  JitStats jit;
};

/// A compact multi-line table for people (the demo, logs); sizes in KiB/MiB.
/// Not a stable format: tools should read the fields.
std::ostream& operator<<(std::ostream& out, const Stats& stats);

}  // namespace kiln

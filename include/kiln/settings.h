// kiln's knobs from C++: one setter (and where useful a getter) per
// environment variable. The variables, their defaults and their syntax are
// README.md's "Environment variables" table, declared once in
// profiler/settings/settings.def. A setter replaces its variable: called
// before the knob's first use, the variable is never read; called after, it
// takes effect from then on. A setter rejects a bad value with
// kiln::ValueError naming it, as the variable's parser does.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln {

/// Memory budget in bytes (0 = unlimited). KILN_MEMORY_BUDGET ("2G"). An
/// allocation past it first evicts values kiln can recompute from their
/// producer (recomputed when next used, by the eviction policy below);
/// kiln::OutOfMemory, with a report of what holds memory and why it stays,
/// only when nothing evictable is left. Values made while no budget is set
/// cannot be evicted: set it before the work it is to bound.
void set_memory_budget(std::size_t bytes);
std::size_t memory_budget();

/// Which evictable value goes first over the budget (KILN_EVICTION_POLICY):
/// "dtr" (default; DTR's heuristic: measured recompute cost, with that of
/// evicted producers it would recompute too, over bytes x time unused),
/// "dtr_local" (the same with the value's own recompute cost only), "lru"
/// (least recently used) or "largest". Throws kiln::ValueError for another
/// word.
void set_eviction_policy(const std::string& policy);
std::string eviction_policy();

/// Ops recorded before a segment is cut regardless (>= 1; KILN_TRACE_LIMIT).
void set_trace_limit(std::int64_t ops);
std::int64_t trace_limit();

/// Threads that kernels use (>= 1; KILN_NUM_THREADS).
void set_num_threads(int n);
int get_num_threads();

/// The on-disk kernel cache's directory; "" or "off" turns the cache off
/// (KILN_CACHE_DIR). Kernels loaded and stored after the call use it; the
/// tuning database follows it if it was not opened yet.
void set_cache_dir(const std::string& dir);
/// The directory in use, "" when the cache is off.
std::string cache_dir();

/// Bytes the kernel cache may hold on disk; least recently used files are
/// evicted past it at the next store (KILN_CACHE_MAX_BYTES, "1G").
void set_cache_max_bytes(std::uint64_t bytes);
std::uint64_t cache_max_bytes();

/// Memory kept for right operands of matrix products packed once and
/// reused while no write changes them (a linear layer's weight in
/// inference; KILN_PREPACK_MAX_BYTES, "1G"; 0 turns it off). Least
/// recently used go first past it; nothing is kept under a memory budget.
void set_prepack_max_bytes(std::uint64_t bytes);
std::uint64_t prepack_max_bytes();

/// Whether the profiler keeps per-key records, cut sites, call sites and
/// events (KILN_PROFILE); the JIT's counters are kept either way.
void set_profiling(bool on);
bool profiling();

/// true prints print_stats()'s report to stderr at exit (KILN_REPORT=1).
void set_report_at_exit(bool on);

/// Writes a Chrome trace-event JSON timeline of the run from now on to
/// `path`, for Perfetto (KILN_TRACE_EVENTS; docs/timeline.md); "" closes
/// it. Throws kiln::ValueError when the file cannot be written.
void set_trace_events_path(const std::string& path);

/// Writes the compile stages `stages` ("spec,ir,opt,asm,perf", any of them,
/// or "all"; "" for none) of each kernel compiled from now on to files in
/// `dir` (KILN_DUMP, KILN_DUMP_DIR); "perf" names each kernel linked from
/// now on in /tmp/perf-<pid>.map, for Linux perf. Throws kiln::ValueError
/// naming an unknown stage.
void set_dump(const std::string& stages, const std::string& dir = ".");

/// Where matrix products and JIT-compiled kernels take their configs
/// (KILN_AUTOTUNE): Off, the built-in heuristic ("0"); Database, what
/// `kiln tune` stored ("1", the default); Online, besides, hot products
/// and compiled kernels with no stored config are tuned in the background
/// and their winners swapped in ("online").
enum class AutotuneMode { Off, Database, Online };
void set_autotune_mode(AutotuneMode mode);
AutotuneMode autotune_mode();

/// Seconds one online tuning may take (> 0; KILN_AUTOTUNE_BUDGET, default 2).
void set_autotune_budget(double seconds);
double autotune_budget();

/// Defined by the JIT layer (jit/tier1).
namespace jit {
/// Runs of a segment before its kernels are compiled (>= 1; KILN_HOT_THRESHOLD).
/// Setting it also skips the break-even estimate: hot means compile.
void set_hot_threshold(std::int64_t runs);
std::int64_t hot_threshold();
/// false keeps everything on tier 0, the interpreter (KILN_JIT=0).
void set_enabled(bool on);
bool enabled();
/// true compiles in the foreground, so results are deterministic (KILN_JIT_SYNC=1).
void set_compile_sync(bool on);
/// KILN_COMPILE_TIMEOUT_MS: a compile running longer is given up, its
/// kernel left on tier 0 (0: no bound). Throws ValueError below 0.
void set_compile_timeout(std::chrono::milliseconds bound);
/// KILN_COMPILE_COLD_MS: a queued compile whose kernel has not run for this
/// long is dropped unrun. Throws ValueError below 1 ms.
void set_compile_cold_after(std::chrono::milliseconds after);
/// KILN_JIT_MAX_KEYS: segment keys (and shape families) the JIT keeps
/// records of. Throws ValueError below 8.
void set_max_keys(std::size_t keys);
/// KILN_JIT_MAX_KERNELS: compiled kernels kept beyond those the kept keys
/// use. Throws ValueError below 8.
void set_max_kernels(std::size_t kernels);
}  // namespace jit

}  // namespace kiln

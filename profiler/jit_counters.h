// The JIT's counters: compiles, swaps, demotions, cache hits, runs per tier,
// and compile latencies. Bumped from the user's thread and from compile
// tasks; folded into kiln::Stats::jit by snapshot().
#pragma once

#include <cstdint>
#include <string>

namespace kiln::profiler {

enum class JitEvent : std::uint8_t {
  CompileRequested,     // a kernel was queued for compilation
  CompileDone,          // a compile finished and was published
  CompileFailed,        // a compile failed; the kernel stays on tier 0
  Demoted,              // compiled code measured slower than tier 0 and retired
  HotSwap,              // new code published for a kernel already in use
  MemoryCacheHit,       // a segment found its kernel compiled already (shared sub-sequence)
  DiskCacheHit,         // a kernel loaded from the on-disk cache instead of compiled
  DiskCacheWrite,       // a compiled object written to the on-disk cache
  GroupRunCompiled,     // a fused group executed by compiled code
  GroupRunInterpreted,  // a fused group executed op by op on tier 0
  DynamicCompile,       // a kernel compiled with run-time sizes for a family of shapes
  Tuned,                // a hot kernel tuned in the background; its winner is in use
  CompileDropped,       // a queued compile dropped unrun: its kernel went cold
  CompileTimedOut,      // a compile past its time bound, given up (kernel left on tier 0)
  KernelEvicted,        // a kernel no kept key used, dropped from the cache for its bound
  KeyEvicted,           // a segment key's JIT record dropped for its bound (least recently run)
  kCount
};

void count(JitEvent event, std::uint64_t n = 1) noexcept;
/// Wall time of one compile (lower + optimize + link), for p50/p90.
void record_compile_ms(double ms) noexcept;
/// Wall time of one load from the disk cache.
void record_disk_load_ms(double ms) noexcept;
/// Why a compile failed (the most recent few are kept).
void record_failure(const std::string& reason) noexcept;
/// Compile jobs waiting or running now (queue depth, for the dashboard).
void add_in_flight(std::int64_t delta) noexcept;
/// Compile jobs waiting for the compile thread (not started yet).
void add_queued(std::int64_t delta) noexcept;
/// Kernel objects linked into the ORC session and not removed yet.
void add_kernels_resident(std::int64_t delta) noexcept;
/// Background tuning jobs waiting or running now (KILN_AUTOTUNE=online).
void add_tunes_in_flight(std::int64_t delta) noexcept;

}  // namespace kiln::profiler

// The JIT's counters: compiles, swaps, demotions, cache hits, runs per tier,
// and compile latencies. Bumped from the user's thread and from compile
// tasks; folded into kiln::Stats::jit by snapshot().
#pragma once

#include <cstdint>
#include <string>

namespace kiln::profiler {

/// What profiler::count() counts: one enumerator per KILN_JIT_EVENT row of
/// <kiln/profiler/counters.def> (CompileRequested, CompileDone, ...), each
/// folded into the JitStats field of its row.
enum class JitEvent : std::uint8_t {
#define KILN_JIT_EVENT(name, Event, doc) Event,
#include <kiln/profiler/counters.def>
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

// The engine's counters: what segments were cut, why, and how they ran.
//
// Recording is called once per segment (never per op), from any thread,
// into per-thread blocks (thread_block.h); snapshot() sums them into the
// public kiln::Stats.
#pragma once

#include <cstdint>

#include <kiln/profiler/stats.h>

namespace kiln::profiler {

/// Why the trace was cut into a segment (the materialization point).
enum class CutReason : std::uint8_t {
  Item,            // Tensor::item()
  DataPtr,         // Tensor::data_ptr()
  ToVector,        // Tensor::to_vector()
  Print,           // operator<<
  Bool,            // conversion to bool
  Sync,            // kiln::sync()
  OpLimit,         // the trace buffer reached its op limit
  CrossThread,     // a tensor recorded on one thread was used on another
  ThreadExit,      // a thread ended with ops pending
  MemoryPressure,  // the allocator asked for pending work to run and free memory
  Borrowed,        // an op touched memory the user lent (from_blob): it runs at once
  kCount
};
static_assert(static_cast<std::size_t>(CutReason::kCount) == kNumCutReasons);

/// "item", "data_ptr", ..., "memory_pressure"; "?" for anything else.
const char* to_string(CutReason reason) noexcept;

/// Counts the ops of one segment as recorded (call once per segment).
void add_ops_recorded(std::uint64_t n) noexcept;

/// One execution of a segment, as the engine saw it.
struct SegmentRun {
  std::uint64_t key = 0;
  CutReason reason = CutReason::Sync;
  std::uint32_t site = 0;  // the cut's row in the cut-site table (note_cut)
  std::uint32_t ops_run = 0;
  std::uint32_t ops_eliminated = 0;  // dead ops never run
  std::int64_t start_ns = 0;         // on now_ns()'s clock (profiler/enabled.h)
  std::uint64_t nanoseconds = 0;     // wall time
  std::uint64_t intermediate_bytes = 0;
  bool compiled = false;  // at least one fused group ran compiled code (tier 1)
};

/// Counts one execution (per-thread counters, no lock unless the thread
/// sees the key for the first time) and adds its span to the timeline.
void record_segment_run(const SegmentRun& run) noexcept;

/// What the JIT knows of a segment key (KeyStats::state, kernels, ...).
struct KeyJitInfo {
  const char* state = "interpreted";
  std::uint32_t kernels = 0;
  double compile_ms = 0;
  std::uint64_t deopts = 0;
};
/// Fills `out` for `key`; false when the JIT has no record of it.
using KeyInspector = bool (*)(std::uint64_t key, KeyJitInfo& out);
/// Registered by the JIT layer, asked by snapshot() for the top keys only.
void set_key_inspector(KeyInspector inspector) noexcept;

/// Zeroes every counter and forgets every key (for tests).
void reset() noexcept;

/// The profiler's fields of kiln::Stats (ops_*, segments_*, distinct_keys,
/// top_keys, intermediate_bytes, cut_sites, recent_events, jit). The memory
/// fields stay zero: the frontend, which sits above both layers, fills them
/// from kiln::memory::stats().
Stats snapshot();

/// Fills the JIT part of the stats (profiler/jit_counters.cpp).
void fill_jit_stats(JitStats& stats);
/// Zeroes the JIT counters (part of reset()).
void reset_jit() noexcept;

}  // namespace kiln::profiler

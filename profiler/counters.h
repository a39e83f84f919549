// The engine's counters: what segments were cut, why, and how they ran.
//
// Recording is called once per segment (never per op), from any thread;
// snapshot() turns the counters into the public kiln::Stats.
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

/// Counts one execution of the segment `key`: why it was cut, how many ops
/// ran, how many were eliminated as dead, its wall time, and the bytes of
/// temporaries it allocated.
void record_segment_run(std::uint64_t key, CutReason why, std::uint32_t ops_run,
                        std::uint32_t ops_eliminated, std::uint64_t nanoseconds,
                        std::uint64_t intermediate_bytes) noexcept;

/// Zeroes every counter and forgets every key (for tests).
void reset() noexcept;

/// The profiler's fields of kiln::Stats (ops_*, segments_*, distinct_keys,
/// top_keys, intermediate_bytes). The memory fields stay zero: the frontend,
/// which sits above both layers, fills them from kiln::memory::stats().
Stats snapshot();

/// Fills the JIT part of the stats (profiler/jit_counters.cpp).
void fill_jit_stats(JitStats& stats);
/// Zeroes the JIT counters (part of reset()).
void reset_jit() noexcept;

}  // namespace kiln::profiler

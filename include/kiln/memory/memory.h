// kiln's allocator: pooled, 64-byte aligned buffers under a memory budget.
//
// Tensor storage comes from here. Requests up to 4 KiB are rounded up to a
// 64-byte size class, and a released block is cached in its class's free
// list. Larger requests are rounded up to a multiple of 64 and cut from large
// mappings; a released block merges with its free neighbours, so
// the memory a step frees (forward activations) serves what it allocates
// next (gradients, optimizer state) whatever their sizes. A training loop
// that frees and reallocates the same shapes every step stops taking memory
// from the system after the first step.
//
// The budget bounds live bytes (the capacity of blocks handed out and not yet
// released). Pooled blocks do not count against it, but under pressure the
// pool is returned to the system before anything fails. When a request
// cannot fit, allocate() throws kiln::OutOfMemory with a report of what holds
// memory; nothing changes on failure except the oom_errors counter and the
// (emptied) pool.
//
// Every function here is thread safe. The allocator is process-wide.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::memory {

/// A buffer from allocate(). `bytes` is the capacity reserved (at least the
/// request); pass the Block back unchanged to release().
struct Block {
  void* ptr = nullptr;
  std::size_t bytes = 0;
};

/// Returns a 64-byte aligned block of at least `bytes` bytes (a block of 2 MiB
/// or more that takes new memory from the system has its whole 2 MiB pages
/// advised for transparent huge pages, which cuts the TLB misses of
/// streaming it). bytes == 0 gives
/// a valid, non-null 64-byte block. Throws kiln::OutOfMemory (with a report)
/// if live bytes would exceed the budget, or if the system has no memory;
/// throws kiln::ValueError if KILN_MEMORY_BUDGET is malformed (see budget()).
Block allocate(std::size_t bytes);

/// Returns a block from allocate() to the pool. A null block is ignored.
void release(Block block) noexcept;

/// Limits live bytes to `bytes`; 0 means unlimited. Overrides
/// KILN_MEMORY_BUDGET. Lowering the budget below the current live bytes
/// frees nothing: the next allocation fails instead.
void set_budget(std::size_t bytes);

/// The current budget in bytes, 0 when unlimited. Unless set_budget() was
/// called first, it comes from KILN_MEMORY_BUDGET (kiln::settings::parse_bytes syntax; unset
/// or empty means unlimited), read at the first allocate(), budget() or
/// stats(). A malformed value makes each of those throw kiln::ValueError
/// naming the variable and its value, until set_budget() replaces it.
std::size_t budget();

/// Returns pooled memory to the system: the small classes' cached blocks,
/// every mapping with no live block, and the pages of large free blocks.
void trim() noexcept;

/// Counters since process start; capacities, not requested sizes.
struct MemoryStats {
  std::uint64_t allocations = 0;            // calls to allocate() that succeeded
  std::uint64_t pool_hits = 0;              // ... of which took no new memory from the system
  std::uint64_t bytes_allocated_total = 0;  // capacity handed out, summed over all allocations
  std::uint64_t live_bytes = 0;             // capacity handed out and not released
  std::uint64_t peak_bytes = 0;             // maximum of live_bytes since start or reset_peak()
  std::uint64_t pooled_bytes = 0;           // free capacity kept: cached small blocks, and the
                                            // freed parts of the large blocks' mappings
  std::uint64_t budget_bytes = 0;           // budget(); 0 = unlimited
  std::uint64_t oom_errors = 0;             // OutOfMemory thrown
};

/// A snapshot of the counters (each read atomically; under concurrent use
/// they may be a few operations apart).
MemoryStats stats();

/// Sets peak_bytes to the current live_bytes, to measure the peak of a region.
void reset_peak();

}  // namespace kiln::memory

#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include <kiln/error.h>
#include <kiln/memory/memory.h>

#include "memory/free_list.h"
#include "memory/oom_report.h"
#include "memory/residency.h"
#include "memory/segment_heap.h"
#include "memory/size_class.h"
#include "profiler/format.h"
#include "profiler/settings/settings.h"

namespace kiln::memory {
namespace {

using detail::cat;
using profiler::format_bytes;

// Constant-initialized with trivial destructors: storage released by static
// destructors or exiting threads still finds a working allocator.
// Blocks up to kSmallLimit: one free list per size class.
constinit std::array<FreeList, kNumClasses> g_pools{};
// Larger blocks: cut from the segment heap under one lock (a training step
// allocates tens to hundreds of them; a cut or a merge is a few pointer
// updates). Their counters, written under that lock; live blocks are counted
// by the size class that would hold them (for the OOM report).
constinit SegmentHeap g_heap;
constinit std::mutex g_heap_mutex;
struct LargeCounts {
  GuardedCount allocations, hits, bytes_total, kept_bytes;
  std::array<GuardedCount, kNumClasses> live;
};
constinit LargeCounts g_large{};
// Live bytes are one global atomic (not a sum over classes) so that the
// budget check and the reservation are a single compare-exchange.
constinit std::atomic<std::uint64_t> g_live{0};
constinit std::atomic<std::uint64_t> g_peak{0};
constinit std::atomic<std::uint64_t> g_oom_errors{0};
constinit std::atomic<std::size_t> g_budget{0};
constinit std::atomic<bool> g_budget_known{false};
constinit std::atomic<bool> g_budget_ever{false};
constinit std::mutex g_budget_mutex;

[[gnu::noinline]] void read_budget_variable() {
  std::lock_guard lock(g_budget_mutex);
  if (g_budget_known.load(std::memory_order_relaxed)) return;
  const std::size_t bytes = profiler::settings::read_bytes(profiler::settings::Id::MemoryBudget);
  if (bytes != 0) g_budget_ever.store(true);
  g_budget.store(bytes, std::memory_order_relaxed);
  g_budget_known.store(true, std::memory_order_release);
}

std::size_t current_budget() {
  if (!g_budget_known.load(std::memory_order_acquire)) [[unlikely]] read_budget_variable();
  return g_budget.load(std::memory_order_relaxed);
}

std::uint64_t pooled_bytes() noexcept {
  std::uint64_t bytes = g_large.kept_bytes.get();
  for (std::size_t i = 0; i < kNumClasses; ++i) bytes += g_pools[i].pooled.get() * class_bytes(i);
  return bytes;
}

MemorySnapshot snapshot() {
  MemorySnapshot s{g_peak.load(std::memory_order_relaxed), pooled_bytes(), {}};
  for (std::size_t i = 0; i < kNumClasses; ++i) {
    if (const std::uint64_t n = g_pools[i].live.get() + g_large.live[i].get()) {
      s.live_by_class.push_back({class_bytes(i), n});
    }
  }
  return s;
}

[[noreturn]] void out_of_memory(std::size_t request, std::size_t capacity, std::string_view cause) {
  g_oom_errors.fetch_add(1, std::memory_order_relaxed);
  throw OutOfMemory(oom_report(request, capacity, cause, snapshot()));
}

/// Adds `capacity` to live bytes if the budget allows, evicting values that
/// can be recomputed to make room; returns the new total.
std::uint64_t reserve(std::size_t request, std::size_t capacity) {
  // Another thread may take the room an eviction made: a few rounds first.
  constexpr int kMakeRoomRounds = 8;
  const std::size_t budget = current_budget();
  std::uint64_t live = g_live.load(std::memory_order_relaxed);
  for (int rounds = 0;;) {
    if (budget != 0 && live + capacity > budget) [[unlikely]] {
      if (++rounds <= kMakeRoomRounds) {
        const bool made = make_room(live + capacity - budget);
        // Read again even when it fell short: what it did evict is gone
        // (and another thread may have freed more), so the request may fit
        // after all, and if not, the report says what is live now.
        live = g_live.load(std::memory_order_relaxed);
        if (made || live + capacity <= budget) continue;
      }
      trim();  // Pooled memory does not count, but the system can use it.
      out_of_memory(request, capacity,
                    cat("live ", format_bytes(live), " + request exceeds the budget of ", format_bytes(budget),
                        " and nothing evictable is left", residents_report()));
    }
    if (g_live.compare_exchange_weak(live, live + capacity, std::memory_order_relaxed)) return live + capacity;
  }
}

void unreserve(std::size_t capacity) noexcept { g_live.fetch_sub(capacity, std::memory_order_relaxed); }

// Gives back at least `wanted` pooled bytes (or all there are): the heap's
// largest free blocks first, then the small blocks' pools.
void trim_bytes(std::uint64_t wanted) noexcept {
  std::uint64_t returned;
  {
    std::lock_guard lock(g_heap_mutex);
    returned = g_heap.trim(wanted);
    g_large.kept_bytes.set(g_heap.kept_bytes());
  }
  for (std::size_t i = 0; i < kNumClasses && returned < wanted; ++i) {
    FreeList& pool = g_pools[i];
    if (pool.pooled.get() == 0) continue;
    void* block;
    {
      std::lock_guard lock(pool.mutex);
      block = pool.take_all();
    }
    while (block != nullptr) {
      void* next = next_block(block, class_bytes(i));
      std::free(block);
      returned += class_bytes(i);
      block = next;
    }
  }
}

// Near the budget, give cached blocks back before taking more from the
// system, so that the process's footprint (live and pooled bytes) stays
// within the budget: as many bytes as it is over, not every pool. Giving
// all of it back, memory_bench's residual stack at 70% of its peak (tier
// 0, batch 1024) faulted 17-25 thousand pages back in every step after its
// first step of hundreds of evictions: 210-270 ms steps against 80.
void trim_near_budget() {
  const std::size_t budget = g_budget.load(std::memory_order_relaxed);
  const std::uint64_t footprint = g_live.load(std::memory_order_relaxed) + pooled_bytes();
  if (budget != 0 && footprint > budget) trim_bytes(footprint - budget);
}

// `attempt()` (a block, or nullptr when the system refuses), once more
// after giving the pools back; near the budget the pools go first.
template <class Attempt>
void* from_the_system(std::size_t request, std::size_t capacity, Attempt attempt) {
  trim_near_budget();
  for (int tries = 0; tries < 2; ++tries) {
    if (void* ptr = attempt()) return ptr;
    trim();
  }
  unreserve(capacity);
  out_of_memory(request, capacity,
                cat("the system has no memory left (live ", format_bytes(g_live.load(std::memory_order_relaxed)),
                    ")"));
}

/// Fresh memory from the system for a small block, for a reservation already made.
void* allocate_fresh(std::size_t request, std::size_t capacity) {
  // posix_memalign rather than aligned_alloc: C requires aligned_alloc's size
  // to be a multiple of the alignment (ASan enforces it).
  return from_the_system(request, capacity, [&]() -> void* {
    void* ptr = nullptr;
    return posix_memalign(&ptr, kAlignment, capacity) == 0 ? ptr : nullptr;
  });
}

// Counts a block the heap handed out; requires g_heap_mutex.
void note_large_block(std::size_t capacity, bool hit) noexcept {
  g_large.allocations.add(1);
  g_large.hits.add(hit ? 1 : 0);
  g_large.bytes_total.add(capacity);
  g_large.live[class_index(capacity)].add(1);
  g_large.kept_bytes.set(g_heap.kept_bytes());
}

/// A block from the segment heap, for a reservation already made.
void* allocate_large(std::size_t request, std::size_t capacity) {
  {
    std::lock_guard lock(g_heap_mutex);
    if (void* ptr = g_heap.take(capacity)) {
      note_large_block(capacity, true);
      return ptr;
    }
  }
  return from_the_system(request, capacity, [&]() -> void* {
    std::lock_guard lock(g_heap_mutex);
    void* ptr = g_heap.grow(capacity);
    if (ptr != nullptr) note_large_block(capacity, false);
    return ptr;
  });
}

void raise_peak(std::uint64_t live) noexcept {
  std::uint64_t peak = g_peak.load(std::memory_order_relaxed);
  while (live > peak && !g_peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
}

}  // namespace

Block allocate(std::size_t bytes) {
  if (bytes > kMaxClassBytes) [[unlikely]] {
    out_of_memory(bytes, bytes, cat("larger than the largest block, ", format_bytes(kMaxClassBytes)));
  }
  if (bytes > kSmallLimit) {
    const std::size_t capacity = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    const std::uint64_t live = reserve(bytes, capacity);
    void* ptr = allocate_large(bytes, capacity);
    raise_peak(live);
    return {ptr, capacity};
  }
  const std::size_t index = class_index(bytes);
  const std::size_t capacity = class_bytes(index);
  const std::uint64_t live = reserve(bytes, capacity);

  FreeList& pool = g_pools[index];
  void* ptr;
  {
    std::lock_guard lock(pool.mutex);
    ptr = pool.pop(capacity);
    if (ptr != nullptr) {
      pool.hits.add(1);
      pool.allocations.add(1);
      pool.live.add(1);
    }
  }
  if (ptr == nullptr) {
    ptr = allocate_fresh(bytes, capacity);
    std::lock_guard lock(pool.mutex);
    pool.allocations.add(1);
    pool.live.add(1);
  }
  raise_peak(live);
  return {ptr, capacity};
}

void release(Block block) noexcept {
  if (block.ptr == nullptr) return;
  if (block.bytes > kSmallLimit) {
    std::lock_guard lock(g_heap_mutex);
    KILN_CHECK(SegmentHeap::capacity(block.ptr) == block.bytes, "release() of a block of ", block.bytes,
               " bytes, which was allocated with ", SegmentHeap::capacity(block.ptr));
    g_heap.give_back(block.ptr);
    g_large.live[class_index(block.bytes)].sub(1);
    g_large.kept_bytes.set(g_heap.kept_bytes());
    unreserve(block.bytes);
    return;
  }
  KILN_CHECK(class_bytes(class_index(block.bytes)) == block.bytes, "release() of a block of ", block.bytes,
             " bytes, which is no size class");
  FreeList& pool = g_pools[class_index(block.bytes)];
  unreserve(block.bytes);
  std::lock_guard lock(pool.mutex);
  pool.push(block.ptr, block.bytes);
  pool.live.sub(1);
}

void trim() noexcept { trim_bytes(UINT64_MAX); }

void set_budget(std::size_t bytes) {
  std::lock_guard lock(g_budget_mutex);
  if (bytes != 0) g_budget_ever.store(true);
  g_budget.store(bytes, std::memory_order_relaxed);
  g_budget_known.store(true, std::memory_order_release);
}

std::size_t budget() { return current_budget(); }

bool residency_enabled() { return current_budget() != 0; }
bool residency_ever_enabled() noexcept { return g_budget_ever.load(); }

MemoryStats stats() {
  MemoryStats s;
  for (std::size_t i = 0; i < kNumClasses; ++i) {
    const FreeList& pool = g_pools[i];
    const std::uint64_t allocations = pool.allocations.get();
    s.allocations += allocations;
    s.pool_hits += pool.hits.get();
    s.bytes_allocated_total += allocations * class_bytes(i);
    s.pooled_bytes += pool.pooled.get() * class_bytes(i);
  }
  s.allocations += g_large.allocations.get();
  s.pool_hits += g_large.hits.get();
  s.bytes_allocated_total += g_large.bytes_total.get();
  s.pooled_bytes += g_large.kept_bytes.get();
  s.live_bytes = g_live.load(std::memory_order_relaxed);
  s.peak_bytes = g_peak.load(std::memory_order_relaxed);
  s.budget_bytes = current_budget();
  s.oom_errors = g_oom_errors.load(std::memory_order_relaxed);
  return s;
}

void reset_peak() { g_peak.store(g_live.load(std::memory_order_relaxed), std::memory_order_relaxed); }

}  // namespace kiln::memory

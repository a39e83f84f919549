#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include <sys/mman.h>

#include <kiln/error.h>
#include <kiln/memory/memory.h>

#include "memory/free_list.h"
#include "memory/oom_report.h"
#include "memory/residency.h"
#include "memory/size_class.h"
#include "profiler/format.h"
#include "profiler/settings/settings.h"

namespace kiln::memory {
namespace {

using detail::cat;
using profiler::format_bytes;

// Constant-initialized with trivial destructors: storage released by static
// destructors or exiting threads still finds a working allocator.
constinit std::array<FreeList, kNumClasses> g_pools{};
// Live bytes are one global atomic (not a sum over classes) so that the
// budget check and the reservation are a single compare-exchange.
constinit std::atomic<std::uint64_t> g_live{0};
constinit std::atomic<std::uint64_t> g_peak{0};
constinit std::atomic<std::uint64_t> g_oom_errors{0};
constinit std::atomic<std::size_t> g_budget{0};
constinit std::atomic<bool> g_budget_known{false};
constinit std::atomic<bool> g_budget_ever{false};
constinit std::mutex g_budget_mutex;

constexpr std::size_t kHugePage = std::size_t{2} << 20;

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
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < kNumClasses; ++i) bytes += g_pools[i].pooled.get() * class_bytes(i);
  return bytes;
}

MemorySnapshot snapshot() {
  MemorySnapshot s{g_peak.load(std::memory_order_relaxed), pooled_bytes(), {}};
  for (std::size_t i = 0; i < kNumClasses; ++i) {
    if (const std::uint64_t n = g_pools[i].live.get()) s.live_by_class.push_back({class_bytes(i), n});
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
      if (++rounds <= kMakeRoomRounds && make_room(live + capacity - budget)) {
        live = g_live.load(std::memory_order_relaxed);
        continue;
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

// posix_memalign rather than aligned_alloc: C requires aligned_alloc's size
// to be a multiple of the alignment (ASan enforces it), and a block's
// capacity need not be a multiple of 2 MiB.
void* aligned_block(std::size_t alignment, std::size_t bytes) {
  void* ptr = nullptr;
  return posix_memalign(&ptr, alignment, bytes) == 0 ? ptr : nullptr;
}

/// Fresh memory from the system, for a reservation already made.
void* allocate_fresh(std::size_t request, std::size_t capacity) {
  // Near the budget, give cached blocks back before taking more from the
  // system, so that the process's footprint stays close to the budget.
  const std::size_t budget = g_budget.load(std::memory_order_relaxed);
  if (budget != 0 && g_live.load(std::memory_order_relaxed) + pooled_bytes() > budget) trim();

  // Blocks of a huge page or more start on a huge page and are offered to
  // transparent huge pages (where the system leaves THP to madvise): a pass
  // over a large tensor then walks one page table entry per 2 MiB instead
  // of per 4 KiB. Streaming a 64 MiB float sum on one thread of the 2-core
  // AVX2 EPYC: 5.4-6.0 ms on 4 KiB pages, 4.3-4.4 ms on huge pages.
  const std::size_t alignment = capacity >= kHugePage ? kHugePage : kAlignment;
  void* ptr = aligned_block(alignment, capacity);
  if (ptr == nullptr) {
    trim();
    ptr = aligned_block(alignment, capacity);
  }
  if (ptr != nullptr && alignment == kHugePage) madvise(ptr, capacity / kHugePage * kHugePage, MADV_HUGEPAGE);
  if (ptr == nullptr) {
    unreserve(capacity);
    out_of_memory(request, capacity,
                  cat("the system has no memory left (live ",
                      format_bytes(g_live.load(std::memory_order_relaxed)), ")"));
  }
  return ptr;
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
  KILN_CHECK(block.bytes <= kMaxClassBytes && class_bytes(class_index(block.bytes)) == block.bytes,
             "release() of a block of ", block.bytes, " bytes, which is no size class");
  FreeList& pool = g_pools[class_index(block.bytes)];
  unreserve(block.bytes);
  std::lock_guard lock(pool.mutex);
  pool.push(block.ptr, block.bytes);
  pool.live.sub(1);
}

void trim() noexcept {
  for (std::size_t i = 0; i < kNumClasses; ++i) {
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
      block = next;
    }
  }
}

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
  s.live_bytes = g_live.load(std::memory_order_relaxed);
  s.peak_bytes = g_peak.load(std::memory_order_relaxed);
  s.budget_bytes = current_budget();
  s.oom_errors = g_oom_errors.load(std::memory_order_relaxed);
  return s;
}

void reset_peak() { g_peak.store(g_live.load(std::memory_order_relaxed), std::memory_order_relaxed); }

}  // namespace kiln::memory

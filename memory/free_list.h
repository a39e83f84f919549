// One size class's pool: a free list of cached blocks and the class's counters.
//
// The list is intrusive (a free block's first word points to the next one),
// so caching a block never allocates and release() can stay noexcept.
// Counters are written only under the mutex but are atomics, so stats() and
// the OOM report read them without taking every class's lock.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace kiln::memory {

/// A count written only by the holder of a lock (so a plain load and store,
/// no locked instruction) and readable by anyone.
class GuardedCount {
 public:
  void add(std::uint64_t n) noexcept { set(get() + n); }
  void sub(std::uint64_t n) noexcept { set(get() - n); }
  std::uint64_t get() const noexcept { return value_.load(std::memory_order_relaxed); }
  void set(std::uint64_t v) noexcept { value_.store(v, std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

// Under AddressSanitizer a cached block is poisoned, so a kernel writing into
// a released buffer is reported instead of silently corrupting the next owner.
// The link word stays readable: LeakSanitizer skips poisoned words, and would
// report every block after a list's head as leaked.
inline void set_cached(void* block, std::size_t bytes, bool cached) noexcept {
#if defined(__SANITIZE_ADDRESS__)
  char* rest = static_cast<char*>(block) + sizeof(void*);
  if (cached) {
    ASAN_POISON_MEMORY_REGION(rest, bytes - sizeof(void*));
  } else {
    ASAN_UNPOISON_MEMORY_REGION(rest, bytes - sizeof(void*));
  }
#else
  (void)block, (void)bytes, (void)cached;
#endif
}

/// Hands a cached `block` to a new owner and returns the next block of its list.
inline void* next_block(void* block, std::size_t bytes) noexcept {
  set_cached(block, bytes, false);
  return *static_cast<void**>(block);
}

struct alignas(64) FreeList {
  std::mutex mutex;
  void* head = nullptr;
  GuardedCount pooled;       // blocks in the list
  GuardedCount live;         // blocks handed out and not released
  GuardedCount allocations;  // blocks handed out, ever
  GuardedCount hits;         // ... of which came from the list

  // The members below require the mutex.

  void push(void* block, std::size_t bytes) noexcept {
    *static_cast<void**>(block) = head;
    set_cached(block, bytes, true);
    head = block;
    pooled.add(1);
  }

  /// nullptr when the list is empty.
  void* pop(std::size_t bytes) noexcept {
    void* block = head;
    if (block == nullptr) return nullptr;
    head = next_block(block, bytes);
    pooled.sub(1);
    return block;
  }

  /// Empties the list and returns its old head (walk it with next_block).
  void* take_all() noexcept {
    void* all = head;
    head = nullptr;
    pooled.sub(pooled.get());
    return all;
  }
};

}  // namespace kiln::memory

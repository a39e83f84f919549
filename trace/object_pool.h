// make_pooled<T>(...): std::make_shared through per-thread free lists.
//
// Every recorded op makes a TensorImpl and a Storage; a segment frees
// thousands at once when it is cut. Kept on a thread's own free list, those
// blocks are handed out again without a trip through malloc (callgrind:
// malloc and free were ~450 of ~2400 instructions of a recorded add).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace kiln::trace {

template <std::size_t Bytes>
class BlockFreeList {
 public:
  static void* pop() noexcept {
    State& s = state;
    void* p = s.head;
    if (p) {
      s.head = *static_cast<void**>(p);
      --s.count;
    }
    return p;
  }
  /// False when the block must go back to the system (list full, or the
  /// thread is exiting and its list already drained).
  static bool push(void* p) noexcept {
    State& s = state;
    if (s.closed || s.count >= kMaxBlocks) return false;
    if (!s.drain_armed) {
      static thread_local Drain drain;  // frees the list at thread exit
      s.drain_armed = true;
    }
    *static_cast<void**>(p) = s.head;
    s.head = p;
    ++s.count;
    return true;
  }

 private:
  static constexpr std::uint32_t kMaxBlocks = 4096;
  // Trivially destructible, so readable at any point of thread exit; and
  // initial-exec, so reaching it is one instruction, not a call to
  // __tls_get_addr (which cost ~130 instructions per recorded op).
  struct State {
    void* head;
    std::uint32_t count;
    bool closed;
    bool drain_armed;
  };
  static thread_local State state __attribute__((tls_model("initial-exec")));
  struct Drain {
    ~Drain() {
      state.closed = true;
      while (void* p = pop()) ::operator delete(p);
    }
  };
};

template <std::size_t Bytes>
thread_local typename BlockFreeList<Bytes>::State BlockFreeList<Bytes>::state{nullptr, 0, false, false};

template <class T>
class PoolAllocator {
 public:
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    if (n == 1)
      if (void* p = BlockFreeList<sizeof(T)>::pop()) return static_cast<T*>(p);
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n == 1 && BlockFreeList<sizeof(T)>::push(p)) return;
    ::operator delete(p);
  }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T, class... A>
std::shared_ptr<T> make_pooled(A&&... args) {
  return std::allocate_shared<T>(PoolAllocator<T>{}, std::forward<A>(args)...);
}

}  // namespace kiln::trace

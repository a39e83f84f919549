// Splitting a kernel's work over the kernel threads. One non-template entry
// point, so that TBB's templates are instantiated once, not per kernel.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace kiln::jit::kernels {

/// A non-owning reference to a callable `void(int64_t begin, int64_t end)`;
/// it must not outlive the callable.
class RangeFn {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, RangeFn>>>
  RangeFn(F&& f)
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, std::int64_t b, std::int64_t e) { (*static_cast<std::remove_reference_t<F>*>(o))(b, e); }) {}
  void operator()(std::int64_t begin, std::int64_t end) const { call_(object_, begin, end); }

 private:
  void* object_;
  void (*call_)(void*, std::int64_t, std::int64_t);
};

/// Calls body(begin, end) on pieces covering [0, n), each of at least
/// `grain` items (but the last), in parallel; on the calling thread alone
/// when n <= grain, or when called from inside such a piece (no nested
/// parallelism). Exceptions propagate to the caller.
void parallel_ranges(std::int64_t n, std::int64_t grain, RangeFn body);

/// The threads a parallel_ranges called here would split over: 1 inside a
/// piece of a parallel loop, else the kernel threads.
int loop_threads();

}  // namespace kiln::jit::kernels

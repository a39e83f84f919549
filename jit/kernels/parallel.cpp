#include "jit/kernels/parallel.h"

#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "jit/threads.h"

namespace kiln::jit::kernels {
namespace {

// Whether this thread runs a piece of a parallel loop. A loop inside one
// (a batch of products split by matrix, each product a gemm) runs on the
// thread that reached it: the outer loop already keeps the threads busy,
// and an inner piece another thread took would share its packed panels
// across cores, and wait for them.
thread_local bool in_parallel_piece = false;

}  // namespace

void parallel_ranges(std::int64_t n, std::int64_t grain, RangeFn body) {
  if (n <= 0) return;
  // One kernel thread: the calling thread does it all. (Through the arena,
  // a second user thread would hand its loop to whichever thread holds the
  // arena's one slot.)
  if (n <= grain || in_parallel_piece || num_threads() == 1) return body(0, n);
  auto piece = [&body](const tbb::blocked_range<std::int64_t>& r) {
    // Restored, not cleared: a thread waiting for its loop may run a piece of another.
    const bool outer = std::exchange(in_parallel_piece, true);
    struct Restore {
      bool value;
      ~Restore() { in_parallel_piece = value; }
    } restore{outer};
    body(r.begin(), r.end());
  };
  kernel_arena()->execute([&] { tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n, grain), piece); });
}

int loop_threads() { return in_parallel_piece ? 1 : num_threads(); }

}  // namespace kiln::jit::kernels

#include "jit/kernels/parallel.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "jit/threads.h"

namespace kiln::jit::kernels {

void parallel_ranges(std::int64_t n, std::int64_t grain, RangeFn body) {
  if (n <= 0) return;
  // One kernel thread: the calling thread does it all. (Through the arena,
  // a second user thread would hand its loop to whichever thread holds the
  // arena's one slot.)
  if (n <= grain || num_threads() == 1) return body(0, n);
  kernel_arena()->execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n, grain),
                      [&body](const tbb::blocked_range<std::int64_t>& r) { body(r.begin(), r.end()); });
  });
}

}  // namespace kiln::jit::kernels

#include "jit/threads.h"

#include <atomic>
#include <memory>
#include <mutex>

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <kiln/error.h>

#include "profiler/settings/settings.h"

namespace kiln::jit {
namespace {

// Kernels run in an arena of `threads` slots, and TBB's pool is that big:
// compiles run on the compile queue's own thread (jit/tier1/compile_queue.h).
struct ThreadLimit {
  std::mutex mutex;
  int threads = 0;
  std::unique_ptr<tbb::global_control> control;
  std::shared_ptr<tbb::task_arena> arena;
  std::atomic<int> threads_seen{0};  // `threads`, readable without the mutex

  void set(int n) {
    control.reset();  // one control at a time: TBB obeys the most restrictive
    control = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                    static_cast<std::size_t>(n));
    arena = std::make_shared<tbb::task_arena>(n);
    threads = n;
    threads_seen.store(n, std::memory_order_release);
  }
};

int threads_from_environment() {
  using profiler::settings::Id;
  if (!profiler::settings::text(Id::NumThreads)) return tbb::info::default_concurrency();
  return static_cast<int>(profiler::settings::read_integer(Id::NumThreads));
}

ThreadLimit& limit() {
  static ThreadLimit instance;
  return instance;
}

}  // namespace

void set_num_threads(int n) {
  if (n < 1) throw ValueError(detail::cat("[set_num_threads] number of threads must be at least 1, got ", n));
  ThreadLimit& l = limit();
  std::lock_guard lock(l.mutex);
  l.set(n);
}

std::shared_ptr<tbb::task_arena> kernel_arena() {
  ThreadLimit& l = limit();
  std::lock_guard lock(l.mutex);
  if (l.threads == 0) l.set(threads_from_environment());
  return l.arena;
}

int num_threads() {
  // Asked by every parallel kernel: read without the lock once known.
  static std::atomic<int> known{0};
  if (int n = known.load(std::memory_order_acquire); n > 0 && n == limit().threads_seen.load()) return n;
  ThreadLimit& l = limit();
  std::lock_guard lock(l.mutex);
  if (l.threads == 0) l.set(threads_from_environment());  // first use, unless set_num_threads came first
  known.store(l.threads, std::memory_order_release);
  return l.threads;
}

}  // namespace kiln::jit

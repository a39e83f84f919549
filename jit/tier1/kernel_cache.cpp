#include "jit/tier1/kernel_cache.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <cstdio>

#include <tbb/task_arena.h>

#include "jit/orc/session.h"
#include "jit/tier1/config.h"
#include "jit/tier1/disk_cache.h"
#include "profiler/enabled.h"
#include "profiler/events.h"
#include "profiler/jit_counters.h"

namespace kiln::jit {

const char* to_string(KernelState s) {
  switch (s) {
    case KernelState::Interpreted: return "interpreted";
    case KernelState::Queued: return "queued";
    case KernelState::Compiling: return "compiling";
    case KernelState::Compiled: return "compiled";
    case KernelState::Failed: return "failed";
    case KernelState::Demoted: return "demoted";
  }
  return "?";
}

KernelCache& KernelCache::instance() {
  static KernelCache* cache = new KernelCache;  // entries hold code that may run until exit
  return *cache;
}

std::shared_ptr<KernelEntry> KernelCache::find_or_add(const KernelSpec& spec, bool* existed) {
  std::uint64_t key = spec.key();
  std::lock_guard lock(mu_);
  auto [it, added] = entries_.try_emplace(key);
  if (added) it->second = std::make_shared<KernelEntry>(spec);
  *existed = !added;
  return it->second;
}

bool KernelCache::is_compiled(std::uint64_t key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  return it != entries_.end() && it->second->fn.load() != nullptr;
}

std::size_t KernelCache::size() {
  std::lock_guard lock(mu_);
  return entries_.size();
}

namespace {

// Background compilation: its own arena, so a compile never takes the
// cores kernels run on beyond the one it was given, and a count of jobs
// in flight so that tests and shutdown can wait for them.
class CompileQueue {
 public:
  static CompileQueue& instance() {
    static CompileQueue* q = new CompileQueue;
    return *q;
  }

  void submit(std::function<void()> job) {
    {
      std::lock_guard lock(mu_);
      jobs_.push_back(std::move(job));
      ++pending_;
    }
    profiler::add_in_flight(1);
    profiler::add_queued(1);
    // The task carries no data: the job travels through jobs_ under mu_, a
    // hand-off every tool sees (Debian's TBB is not built for TSan, so one
    // through TBB's own queue looks like a race to it).
    arena_.enqueue([] { instance().run_one(); });
  }

  void wait() {
    std::unique_lock lock(mu_);
    idle_.wait(lock, [this] { return pending_ == 0; });
  }

 private:
  void run_one() {
    std::function<void()> job;
    {
      std::lock_guard lock(mu_);
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    profiler::add_queued(-1);
    job();
    profiler::add_in_flight(-1);
    std::lock_guard lock(mu_);
    if (--pending_ == 0) idle_.notify_all();
  }

  // One slot, none reserved for the calling thread: a TBB worker runs the
  // jobs, so enqueue() returns at once and the user thread never waits.
  tbb::task_arena arena_{1, 0};
  std::mutex mu_;
  std::condition_variable idle_;
  std::deque<std::function<void()>> jobs_;
  std::int64_t pending_ = 0;
};

// "kernel 0x…(add, mul, tanh, …): <message>", for stats and logs.
std::string detail_failure(const KernelSpec& spec, const char* message) {
  std::string ops;
  for (std::size_t i = 0; i < spec.instrs.size() && i < 6; ++i) ops += (i ? ", " : "") + std::string(trace::name(spec.instrs[i].op));
  if (spec.instrs.size() > 6) ops += ", ...";
  char key[24];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(spec.key()));
  return "kernel 0x" + std::string(key) + " (" + ops + "): " + message;
}

void publish(KernelEntry& entry, CompiledFn fn, int level, double ms) {
  bool swap = entry.fn.load() != nullptr;
  {
    std::lock_guard lock(entry.mu);
    entry.compile_ms = ms;
  }
  entry.opt_level.store(level);
  entry.fn.store(fn, std::memory_order_release);
  entry.state.store(KernelState::Compiled);
  if (swap) profiler::count(profiler::JitEvent::HotSwap);
  if (swap) profiler::log_event({.kind = profiler::EventKind::Swapped, .key = entry.key, .detail = level == 3 ? "O3" : "O1"});
}

void compile_now(const std::shared_ptr<KernelEntry>& entry, int level) {
  OrcSession& orc = OrcSession::instance();
  if (level == 1 && entry->fn.load() == nullptr) {
    if (CachedKernel cached = disk_cache_load(entry->key, orc); cached.fn) {
      publish(*entry, cached.fn, cached.opt_level, 0);
      profiler::log_event({.kind = profiler::EventKind::Compiled, .key = entry->key, .detail = "disk cache"});
      return;
    }
  }
  if (entry->fn.load() == nullptr) entry->state.store(KernelState::Compiling);
  const std::int64_t start = profiler::now_ns();
  try {
    CompiledKernel k = orc.compile(entry->spec, CompileOptions{level});
    profiler::record_compile_ms(k.compile_ms);
    profiler::count(profiler::JitEvent::CompileDone);
    publish(*entry, k.fn, level, k.compile_ms);
    profiler::log_event({.kind = profiler::EventKind::Compiled, .key = entry->key, .detail = level == 3 ? "O3" : "O1",
                         .start_ns = start, .duration_ns = profiler::now_ns() - start});
    disk_cache_store(entry->key, level, orc);
  } catch (const std::exception& e) {
    profiler::count(profiler::JitEvent::CompileFailed);
    std::string why = detail_failure(entry->spec, e.what());
    profiler::record_failure(why);
    profiler::log_event({.kind = profiler::EventKind::Failed, .key = entry->key, .detail = why, .start_ns = start,
                         .duration_ns = profiler::now_ns() - start});
    std::lock_guard lock(entry->mu);
    entry->failure = why;
    if (entry->fn.load() == nullptr) entry->state.store(KernelState::Failed);
  }
}

}  // namespace

// A thread that queued compiles waits for them when it exits. For the main
// thread that is at exit(), before static destructors run (thread-locals
// go first), so no compile is still inside LLVM while its statics die.
struct DrainAtThreadExit {
  ~DrainAtThreadExit() { CompileQueue::instance().wait(); }
};

void run_in_background(std::function<void()> job) {
  thread_local DrainAtThreadExit drain;
  (void)drain;
  if (compile_sync()) {
    job();
    return;
  }
  CompileQueue::instance().submit(std::move(job));
}

void request_compile(const std::shared_ptr<KernelEntry>& entry, int opt_level) {
  // An object on disk loads in well under a millisecond: take it now.
  if (opt_level == 1 && entry->fn.load() == nullptr && disk_cache_has(entry->key)) {
    if (CachedKernel cached = disk_cache_load(entry->key, OrcSession::instance()); cached.fn) {
      publish(*entry, cached.fn, cached.opt_level, 0);
      profiler::log_event({.kind = profiler::EventKind::Compiled, .key = entry->key, .detail = "disk cache"});
      return;
    }
  }
  profiler::count(profiler::JitEvent::CompileRequested);
  profiler::log_event({.kind = profiler::EventKind::Queued, .key = entry->key, .detail = opt_level == 3 ? "O3" : "O1"});
  if (entry->fn.load() == nullptr) entry->state.store(KernelState::Queued);
  run_in_background([entry, opt_level] { compile_now(entry, opt_level); });
}

void wait_for_compiles() { CompileQueue::instance().wait(); }

}  // namespace kiln::jit

// The compile queue: hottest job first, cold jobs dropped unrun, and a job
// past its time bound abandoned while the next one runs on a fresh slot.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <unistd.h>

#include <kiln/kiln.h>

#include "jit/tier1/compile_queue.h"
#include "jit/tier1/kernel_cache.h"

namespace {

using namespace kiln::jit;
using namespace std::chrono_literals;

// A gate a job waits at until the test opens it.
class Gate {
 public:
  void open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void pass() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// A compile job of `heat` (GCC 12 warns of designated initializers that
// leave members out).
CompileJob job_of(std::function<void(const std::atomic<bool>&)> run, double heat) {
  CompileJob job;
  job.run = std::move(run);
  job.heat = [heat] { return heat; };
  return job;
}

// Restores the default time bound however the test ends.
struct TimeBound {
  explicit TimeBound(std::chrono::milliseconds bound) : previous(compile_timeout()) { set_compile_timeout(bound); }
  ~TimeBound() { set_compile_timeout(previous); }
  std::chrono::milliseconds previous;
};

TEST(CompileQueue, RunsTheHottestJobFirstAndDropsColdOnes) {
  Gate gate;
  submit_compile_job(job_of([&](const std::atomic<bool>&) { gate.pass(); }, 1e9));
  std::mutex mu;
  std::vector<int> order;
  bool cold_dropped = false;
  const std::uint64_t dropped_before = kiln::stats().jit.compiles_dropped;
  auto job = [&](int tag, double heat) {
    return job_of(
        [&, tag](const std::atomic<bool>&) {
          std::lock_guard lock(mu);
          order.push_back(tag);
        },
        heat);
  };
  CompileJob background;
  background.run = [&](const std::atomic<bool>&) {
    std::lock_guard lock(mu);
    order.push_back(0);
  };
  submit_compile_job(std::move(background));  // no heat: after every compile
  submit_compile_job(job(1, 10));
  submit_compile_job(job(3, 30));
  CompileJob cold = job(9, 90);
  cold.cold = [] { return true; };
  cold.on_drop = [&] {
    std::lock_guard lock(mu);
    cold_dropped = true;
  };
  submit_compile_job(std::move(cold));
  submit_compile_job(job(2, 20));
  gate.open();
  wait_for_compile_queue();
  EXPECT_EQ(order, (std::vector<int>{3, 2, 1, 0}));
  EXPECT_TRUE(cold_dropped);
  EXPECT_EQ(kiln::stats().jit.compiles_dropped, dropped_before + 1);
}

TEST(CompileQueue, AbandonsAJobPastItsTimeBoundAndRunsTheNextOnAFreshSlot) {
  TimeBound bound(100ms);
  Gate stuck_gate;
  std::atomic<bool> saw_abandoned{false}, timed_out{false}, next_ran{false};
  const std::uint64_t before = kiln::stats().jit.compiles_timed_out;
  CompileJob stuck = job_of(
      [&](const std::atomic<bool>& abandoned) {
        stuck_gate.pass();
        saw_abandoned = abandoned.load();
      },
      2);
  stuck.on_timeout = [&](std::chrono::milliseconds b) {
    timed_out = b == 100ms;
    // The next job starts after this returns: it runs under the default
    // bound, so that a loaded machine cannot time it out too.
    set_compile_timeout(bound.previous);
  };
  submit_compile_job(std::move(stuck));
  const std::uint64_t next = submit_compile_job(job_of([&](const std::atomic<bool>&) { next_ran = true; }, 1));
  wait_for_compile_job(next);  // would hang if the stuck job kept the slot
  EXPECT_TRUE(next_ran);
  EXPECT_TRUE(timed_out);
  EXPECT_EQ(kiln::stats().jit.compiles_timed_out, before + 1);
  wait_for_compile_queue();  // the abandoned job no longer counts
  stuck_gate.open();
  wait_for_abandoned_compile_jobs();
  EXPECT_TRUE(saw_abandoned) << "the stuck job must learn that its result is to be discarded";
}

TEST(CompileQueue, AKernelCompilePastItsTimeBoundStaysOnTierZeroAndTheNextCompiles) {
  kiln::jit::set_compile_sync(false);
  auto spec = [](std::int64_t n) {
    KernelSpec s;
    s.ndim = 1;
    s.sizes[0] = n;
    s.inputs.push_back({kiln::kFloat32, {1}});
    s.instrs = {{kiln::trace::OpId::Exp, kiln::kFloat32, kiln::kFloat32, 1, {{ArgRef::Input, 0}}, 0}};
    s.outputs.push_back({0, {kiln::kFloat32, {1}}});
    return s;
  };
  // Sizes no earlier run used: the kernels really compile (no disk cache hit).
  const std::int64_t n = 5000 + (::getpid() % 100000) * 3;
  bool existed = false;
  auto stuck = KernelCache::instance().find_or_add(spec(n), &existed);
  auto next = KernelCache::instance().find_or_add(spec(n + 1), &existed);
  Gate gate;
  std::atomic<bool> released{false};
  set_before_compile_hook([&, key = stuck->key](std::uint64_t k) {
    if (k != key) return;
    gate.pass();
    released = true;
  });
  {
    TimeBound bound(100ms);
    request_compile(stuck, 1);
    wait_for_compiles();  // returns once the stuck compile is abandoned
  }
  EXPECT_EQ(stuck->state.load(), KernelState::Failed);
  {
    std::lock_guard lock(stuck->mu);
    EXPECT_NE(stuck->failure.find("time bound of 100 ms"), std::string::npos) << stuck->failure;
  }
  // The next compile runs under the default bound while the stuck one still
  // holds its old thread: a real LLVM compile under a sanitizer on a loaded
  // machine can itself take more than 100 ms.
  request_compile(next, 1);
  wait_for_compiles();
  EXPECT_EQ(next->state.load(), KernelState::Compiled) << [&] {
    std::lock_guard lock(next->mu);
    return next->failure;
  }();
  EXPECT_NE(next->fn.load(), nullptr);
  gate.open();
  wait_for_abandoned_compile_jobs();  // the abandoned compile has finished and discarded its result
  EXPECT_TRUE(released);
  EXPECT_EQ(stuck->fn.load(), nullptr);
  EXPECT_EQ(stuck->state.load(), KernelState::Failed);
  set_before_compile_hook(nullptr);
}

}  // namespace

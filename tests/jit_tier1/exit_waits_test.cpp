// exit() waits for the JIT's background jobs whichever thread queued them:
// a job queued from a thread that outlives main (a kernel thread, as a
// product asking for its GEMM tile is) finishes before static destructors
// run, instead of running inside LLVM while they do. The child process
// ("threadsafe" death-test style) runs this binary from the start.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "jit/tier1/config.h"
#include "jit/tier1/kernel_cache.h"

namespace {

TEST(ExitWaitsDeathTest, ForABackgroundJobQueuedByAThreadThatOutlivesMain) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        kiln::jit::set_compile_sync(false);
        std::atomic<bool> queued{false};
        std::thread([&queued] {
          kiln::jit::run_in_background([] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            std::fputs("the background job finished\n", stderr);
          });
          queued = true;
          std::this_thread::sleep_for(std::chrono::hours(1));  // still running when main exits
        }).detach();
        while (!queued) std::this_thread::yield();
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "the background job finished");
}

}  // namespace

// parallel_ranges: pieces on the kernel threads, and no nested parallelism.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "jit/kernels/parallel.h"
#include "jit/threads.h"

namespace kiln::jit::kernels {
namespace {

class ParallelRanges : public ::testing::Test {
 protected:
  void SetUp() override {
    threads_before_ = num_threads();
    set_num_threads(2);
  }
  void TearDown() override { set_num_threads(threads_before_); }

 private:
  int threads_before_ = 1;
};

TEST_F(ParallelRanges, PiecesCoverTheRangeOnce) {
  std::vector<std::atomic<int>> seen(10000);
  parallel_ranges(10000, 7, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) seen[i].fetch_add(1);
  });
  for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i].load(), 1) << "item " << i;
}

// An outer loop of two pieces, where the first waits until the second has
// ended: the second's thread is then idle, free to take pieces of the
// first's inner loop, if it had any to take. The inner loop is one call
// on the first's thread.
TEST_F(ParallelRanges, ALoopInsideAPieceRunsWholeOnThatPiecesThread) {
  std::atomic<bool> second_done{false};
  std::mutex mutex;
  std::vector<std::pair<std::int64_t, std::int64_t>> inner_calls;
  std::set<std::thread::id> inner_threads;
  std::thread::id first_thread;
  parallel_ranges(2, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t piece = begin; piece < end; ++piece) {
      if (piece == 1) {
        second_done = true;
        continue;
      }
      first_thread = std::this_thread::get_id();
      // Bounded: with one piece on the caller, the other may be run after this one.
      for (int i = 0; i < 200 && !second_done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      parallel_ranges(64, 1, [&](std::int64_t b, std::int64_t e) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        std::lock_guard lock(mutex);
        inner_calls.emplace_back(b, e);
        inner_threads.insert(std::this_thread::get_id());
      });
    }
  });
  ASSERT_EQ(inner_calls.size(), 1u) << "the inner loop was split into " << inner_calls.size() << " pieces";
  EXPECT_EQ(inner_calls[0], (std::pair<std::int64_t, std::int64_t>{0, 64}));
  EXPECT_EQ(inner_threads, std::set<std::thread::id>{first_thread});
}

TEST_F(ParallelRanges, ALoopAfterAParallelLoopIsSplitAgain) {
  parallel_ranges(2, 1, [](std::int64_t, std::int64_t) {});
  std::atomic<int> calls{0};
  parallel_ranges(64, 1, [&](std::int64_t, std::int64_t) {
    calls.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  });
  EXPECT_GT(calls.load(), 1) << "the caller's thread still counted itself inside a piece";
}

}  // namespace
}  // namespace kiln::jit::kernels

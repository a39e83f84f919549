#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include <kiln/error.h>
#include <kiln/memory/memory.h>

namespace kiln::memory {
namespace {

constexpr int kThreads = 4;

// Each thread keeps a few blocks alive, stamped with its id, and checks the
// stamp before releasing: a block handed to two owners at once shows up as a
// foreign stamp.
void churn(int id, int iterations, std::atomic<int>& corrupted, std::atomic<int>& out_of_memory) {
  static constexpr std::size_t kSizes[] = {0, 64, 1000, 4096, 5000, 70000, 1 << 18};
  std::vector<Block> held;
  for (int i = 0; i < iterations; ++i) {
    try {
      const Block block = allocate(kSizes[(i * 3 + id) % std::size(kSizes)]);
      std::memset(block.ptr, id, 64);
      held.push_back(block);
    } catch (const OutOfMemory&) {
      out_of_memory.fetch_add(1);
    }
    if (held.size() > 6 || (i % 5 == 0 && !held.empty())) {
      const Block block = held.front();
      held.erase(held.begin());
      for (int b = 0; b < 64; ++b) {
        if (static_cast<unsigned char*>(block.ptr)[b] != id) corrupted.fetch_add(1);
      }
      release(block);
    }
  }
  for (Block block : held) release(block);
}

void run_threads(int iterations, std::atomic<int>& corrupted, std::atomic<int>& out_of_memory) {
  std::vector<std::thread> threads;
  for (int id = 1; id <= kThreads; ++id) {
    threads.emplace_back(churn, id, iterations, std::ref(corrupted), std::ref(out_of_memory));
  }
  for (auto& t : threads) t.join();
}

TEST(MemoryConcurrency, FourThreadsBalanceToTheStartingLiveBytes) {
  const std::size_t saved = budget();
  set_budget(0);
  const MemoryStats start = stats();
  constexpr int kIterations = 20000;
  std::atomic<int> corrupted{0}, out_of_memory{0};
  run_threads(kIterations, corrupted, out_of_memory);
  const MemoryStats end = stats();
  set_budget(saved);
  EXPECT_EQ(corrupted.load(), 0);
  EXPECT_EQ(out_of_memory.load(), 0);
  EXPECT_EQ(end.live_bytes, start.live_bytes);
  EXPECT_EQ(end.allocations - start.allocations, std::uint64_t{kThreads} * kIterations);
  EXPECT_GT(end.pool_hits - start.pool_hits, (end.allocations - start.allocations) / 2);
}

TEST(MemoryConcurrency, BudgetHoldsUnderContention) {
  const std::size_t saved = budget();
  const MemoryStats start = stats();
  // A 256 KiB block plus anything else a thread holds is over the limit, so
  // some requests fail however the threads are scheduled.
  const std::size_t limit = start.live_bytes + (1 << 18);
  set_budget(limit);
  reset_peak();
  std::atomic<int> corrupted{0}, out_of_memory{0};
  run_threads(5000, corrupted, out_of_memory);
  const MemoryStats end = stats();
  set_budget(saved);
  EXPECT_EQ(corrupted.load(), 0);
  EXPECT_GT(out_of_memory.load(), 0);
  EXPECT_LE(end.peak_bytes, limit);
  EXPECT_EQ(end.live_bytes, start.live_bytes);
  EXPECT_EQ(end.oom_errors - start.oom_errors, static_cast<std::uint64_t>(out_of_memory.load()));
}

}  // namespace
}  // namespace kiln::memory

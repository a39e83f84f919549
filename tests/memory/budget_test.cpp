#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <kiln/error.h>
#include <kiln/memory/memory.h>

#include "memory/size_class.h"
#include "profiler/format.h"

// The "system refuses" test asks for more than the address space; sanitizer
// allocators must return null for it, as glibc does, instead of aborting.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
#endif
#if defined(__SANITIZE_THREAD__)
extern "C" const char* __tsan_default_options() { return "allocator_may_return_null=1"; }
#endif

namespace kiln::memory {
namespace {

using profiler::format_bytes;

constexpr std::size_t kMiB = std::size_t{1} << 20;

// The allocator is process-wide: leave the budget as the test found it.
class MemoryBudget : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = budget(); }
  void TearDown() override { set_budget(saved_); }

 private:
  std::size_t saved_ = 0;
};

TEST_F(MemoryBudget, OverBudgetThrowsAReportAndChangesNothing) {
  set_budget(stats().live_bytes + 4 * kMiB);
  std::vector<Block> held;
  for (int i = 0; i < 3; ++i) held.push_back(allocate(kMiB));
  release(allocate(kMiB / 2));  // leaves something in the pool

  const MemoryStats before = stats();
  std::string message;
  try {
    allocate(2 * kMiB);
    ADD_FAILURE() << "no OutOfMemory";
  } catch (const OutOfMemory& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("[memory] cannot allocate 2.00 MiB"), std::string::npos) << message;
  EXPECT_NE(message.find("live " + format_bytes(before.live_bytes)), std::string::npos) << message;
  EXPECT_NE(message.find("budget of " + format_bytes(before.budget_bytes)), std::string::npos) << message;
  EXPECT_NE(message.find("live blocks by size: 3 x 1.00 MiB"), std::string::npos) << message;

  const MemoryStats after = stats();
  EXPECT_EQ(after.allocations, before.allocations);
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.peak_bytes, before.peak_bytes);
  EXPECT_EQ(after.oom_errors, before.oom_errors + 1);
  EXPECT_EQ(after.pooled_bytes, 0u);  // trimmed under pressure

  // What still fits is still served.
  held.push_back(allocate(kMiB));
  for (Block b : held) release(b);
}

TEST_F(MemoryBudget, RequestIsRoundedBeforeTheCheck) {
  // A small request takes its size class, a larger one the next multiple of 64.
  const std::pair<std::size_t, std::size_t> cases[] = {{4000, 4032}, {4097, 4160}};
  for (auto [request, capacity] : cases) {
    const std::size_t live = stats().live_bytes;
    set_budget(live + capacity);
    const Block exact = allocate(request);  // fills the budget exactly
    EXPECT_THROW(allocate(0), OutOfMemory) << request;
    release(exact);
    set_budget(live + request);
    try {
      allocate(request);
      ADD_FAILURE() << "no OutOfMemory for " << request;
    } catch (const OutOfMemory& e) {
      const std::string expected = format_bytes(request) + " (a " + format_bytes(capacity) + " block)";
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

TEST_F(MemoryBudget, ZeroMeansUnlimited) {
  set_budget(stats().live_bytes + kMiB);
  EXPECT_THROW(allocate(2 * kMiB), OutOfMemory);
  set_budget(0);
  EXPECT_EQ(budget(), 0u);
  EXPECT_EQ(stats().budget_bytes, 0u);
  release(allocate(64 * kMiB));
}

TEST_F(MemoryBudget, BeyondTheLargestClassOrTheSystemThrowsOutOfMemory) {
  set_budget(0);
  const MemoryStats before = stats();
  try {
    allocate(kMaxClassBytes + 1);
    ADD_FAILURE() << "no OutOfMemory";
  } catch (const OutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("larger than the largest block"), std::string::npos) << e.what();
  }
  try {
    allocate(kMaxClassBytes);  // more than a 47-bit address space
    ADD_FAILURE() << "no OutOfMemory";
  } catch (const OutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("the system has no memory left"), std::string::npos) << e.what();
  }
  const MemoryStats after = stats();
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.allocations, before.allocations);
  EXPECT_EQ(after.oom_errors, before.oom_errors + 2);
}

// Taking a block from the system near the budget gives pooled memory back
// until live and pooled bytes fit the budget: as many bytes as they are
// over, the largest free blocks first, not every pool (whose pages a
// training step then faulted back in).
TEST_F(MemoryBudget, TakingFromTheSystemGivesBackOnlyWhatIsOverTheBudget) {
  set_budget(0);
  trim();
  std::vector<Block> freed, spacers;
  for (int i = 0; i < 3; ++i) {
    freed.push_back(allocate(2 * kMiB));
    spacers.push_back(allocate(64 << 10));  // keeps the freed blocks apart
  }
  for (Block b : freed) release(b);
  const MemoryStats before = stats();
  ASSERT_GE(before.pooled_bytes, 6 * kMiB);
  // 40 MiB fits no free block: it takes a new segment, 3 MiB over the budget.
  const std::size_t request = 40 * kMiB;
  set_budget(before.live_bytes + request + before.pooled_bytes - 3 * kMiB);
  const Block big = allocate(request);
  const MemoryStats after = stats();
  EXPECT_LE(after.live_bytes + after.pooled_bytes, after.budget_bytes);
  EXPECT_GE(after.pooled_bytes, before.pooled_bytes - 4 * kMiB);
  release(big);
  for (Block b : spacers) release(b);
}

// The environment is read once per process, so each case runs in a fresh one.
class MemoryBudgetEnvDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(MemoryBudgetEnvDeathTest, ValidValueSetsTheBudget) {
  EXPECT_EXIT(
      {
        setenv("KILN_MEMORY_BUDGET", "1.5K", 1);
        const Block held = allocate(1024);
        if (budget() != 1536 || stats().budget_bytes != 1536) std::exit(1);
        try {
          allocate(1024);
          std::exit(2);
        } catch (const OutOfMemory&) {
        }
        release(held);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(MemoryBudgetEnvDeathTest, BadValueThrowsValueErrorAtFirstAllocation) {
  EXPECT_EXIT(
      {
        setenv("KILN_MEMORY_BUDGET", "12x", 1);
        for (int attempt = 0; attempt < 2; ++attempt) {
          try {
            allocate(1);
            std::exit(1);
          } catch (const ValueError& e) {
            const std::string m = e.what();
            if (m.find("[settings] KILN_MEMORY_BUDGET='12x' is not a byte count") != 0) std::exit(2);
          }
        }
        set_budget(0);  // an explicit budget replaces the bad variable
        release(allocate(1));
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(MemoryBudgetEnvDeathTest, SetBudgetBeforeFirstUseWins) {
  EXPECT_EXIT(
      {
        setenv("KILN_MEMORY_BUDGET", "1K", 1);
        set_budget(0);
        release(allocate(1 << 20));
        std::exit(budget() == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace kiln::memory

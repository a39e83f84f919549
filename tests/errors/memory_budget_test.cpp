// An allocation past the memory budget throws kiln::OutOfMemory at the read
// (allocation happens when the segment runs), with a report naming the
// budget; lifting the budget makes everything work again.
#include <gtest/gtest.h>

#include <cstddef>

#include <kiln/kiln.h>

#include "tests/errors/expect_error.h"

namespace {

using kerr::throws;
using kiln::Tensor;

constexpr std::size_t kMiB = std::size_t{1} << 20;

class MemoryBudget : public ::testing::Test {
 protected:
  void TearDown() override { kiln::set_memory_budget(0); }
};

TEST_F(MemoryBudget, SixtyFourMiBUnderAOneMiBBudgetThrowsAtTheRead) {
  kerr::Survivors s;
  const std::uint64_t ooms_before = kiln::stats().oom_errors;
  kiln::set_memory_budget(kMiB);
  Tensor big;
  ASSERT_NO_THROW(big = kiln::zeros({16 * static_cast<std::int64_t>(kMiB)}));  // 64 MiB of float32, pending
  EXPECT_EQ(big.numel(), 16 * static_cast<std::int64_t>(kMiB));
  EXPECT_TRUE(throws<kiln::OutOfMemory>([&] { (void)big.sum().item<float>(); }, {"budget", "1.00 MiB"}));
  EXPECT_EQ(kiln::stats().budget_bytes, kMiB);
  EXPECT_GT(kiln::stats().oom_errors, ooms_before);

  kiln::set_memory_budget(0);
  EXPECT_TRUE(s.intact());
  Tensor again = kiln::ones({16 * static_cast<std::int64_t>(kMiB)});
  EXPECT_EQ(again.sum().item<float>(), 16.0f * static_cast<float>(kMiB));
}

TEST_F(MemoryBudget, AHeldTensorPastTheBudgetInALongerSegmentThrowsAndNothingLeaks) {
  kiln::sync();
  const std::uint64_t live_before = kiln::stats().live_bytes;
  kiln::set_memory_budget(live_before + 4 * kMiB);
  {
    Tensor x = kiln::ones({2 * static_cast<std::int64_t>(kMiB)});  // 8 MiB
    Tensor y = (x * 2 + 1).sum();
    EXPECT_THROW((void)y.item<float>(), kiln::OutOfMemory);
  }
  kiln::set_memory_budget(0);
  kiln::sync();
  EXPECT_LE(kiln::stats().live_bytes, live_before) << "a failed segment kept memory alive";
  Tensor ok = kiln::ones({4}) * 2;
  EXPECT_EQ(ok.sum().item<float>(), 8.0f);
}

TEST_F(MemoryBudget, WorkThatFitsTheBudgetRuns) {
  kiln::sync();
  kiln::set_memory_budget(kiln::stats().live_bytes + 8 * kMiB);
  Tensor x = kiln::ones({256 * 1024});  // 1 MiB
  EXPECT_EQ((x * 3).sum().item<float>(), 3.0f * 256 * 1024);
}

}  // namespace

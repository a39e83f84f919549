#include <gtest/gtest.h>

#include <kiln/memory/memory.h>

#include "memory/size_class.h"

namespace kiln::memory {
namespace {

TEST(MemorySizeClass, ClassesAreIncreasingAlignedAndRoundTrip) {
  for (std::size_t i = 0; i < kNumClasses; ++i) {
    const std::size_t bytes = class_bytes(i);
    EXPECT_EQ(bytes % kAlignment, 0u) << i;
    EXPECT_EQ(class_index(bytes), i) << bytes;
    if (i > 0) {
      EXPECT_GT(bytes, class_bytes(i - 1));
      EXPECT_EQ(class_index(class_bytes(i - 1) + 1), i) << bytes;
    }
  }
}

TEST(MemorySizeClass, SlackIsAtMostAQuarterAbove4K) {
  for (std::size_t i = kSmallClasses; i < kNumClasses; ++i) {
    const std::size_t smallest_request = class_bytes(i - 1) + 1;
    EXPECT_LE(class_bytes(i) - smallest_request, smallest_request / 4) << class_bytes(i);
  }
}

TEST(MemorySizeClass, JemallocLikeSteps) {
  const std::size_t expected[] = {4096, 5120, 6144, 7168, 8192, 10240, 12288, 14336, 16384, 20480};
  std::size_t index = class_index(4096);
  for (std::size_t bytes : expected) EXPECT_EQ(class_bytes(index++), bytes);
}

TEST(MemorySizeClass, AllocateRoundsRequestsUp) {
  const std::pair<std::size_t, std::size_t> cases[] = {
      {0, 64},           {1, 64},          {64, 64},         {65, 128},
      {4000, 4032},      {4096, 4096},
      // Above the small classes, blocks are cut from the segment heap to the
      // next multiple of 64.
      {4097, 4160},      {9000, 9024},     {(1 << 20) + 1, (1 << 20) + 64}, {3 << 20, 3 << 20},
  };
  for (auto [request, capacity] : cases) {
    const Block block = allocate(request);
    EXPECT_EQ(block.bytes, capacity) << request;
    release(block);
  }
}

}  // namespace
}  // namespace kiln::memory

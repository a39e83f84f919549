#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include <kiln/memory/memory.h>

namespace kiln::memory {
namespace {

TEST(MemoryAllocator, BlocksAre64ByteAlignedAndWritable) {
  for (std::size_t bytes : {0, 1, 63, 100, 4095, 4097, 70000, 1 << 22}) {
    const Block block = allocate(bytes);
    ASSERT_NE(block.ptr, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block.ptr) % 64, 0u) << bytes;
    EXPECT_GE(block.bytes, bytes);
    std::memset(block.ptr, 0xab, block.bytes);
    release(block);
  }
}

// Blocks of 2 MiB or more start on a huge page boundary (and are offered to
// transparent huge pages); smaller ones keep the 64-byte alignment.
TEST(MemoryAllocator, LargeBlocksStartOnAHugePage) {
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  for (std::size_t bytes : {std::size_t{2} << 20, (std::size_t{5} << 20) + 3, std::size_t{64} << 20}) {
    const Block block = allocate(bytes);
    ASSERT_NE(block.ptr, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block.ptr) % kHugePage, 0u) << bytes;
    std::memset(block.ptr, 0xcd, block.bytes);
    release(block);
  }
}

TEST(MemoryAllocator, ReleasedBlockIsReusedFromThePool) {
  const Block first = allocate(1000);
  release(first);
  const MemoryStats before = stats();
  const Block second = allocate(1000);
  const MemoryStats after = stats();
  EXPECT_EQ(second.ptr, first.ptr);
  EXPECT_EQ(after.allocations, before.allocations + 1);
  EXPECT_EQ(after.pool_hits, before.pool_hits + 1);
  EXPECT_EQ(after.pooled_bytes, before.pooled_bytes - 1024);
  EXPECT_EQ(after.bytes_allocated_total, before.bytes_allocated_total + 1024);
  release(second);
}

TEST(MemoryAllocator, LiveAndPeakFollowAllocations) {
  reset_peak();
  const MemoryStats start = stats();
  EXPECT_EQ(start.peak_bytes, start.live_bytes);

  const Block a = allocate(3000);  // 3008 bytes
  const Block b = allocate(1 << 20);
  EXPECT_EQ(stats().live_bytes, start.live_bytes + 3008 + (1 << 20));
  release(b);
  const MemoryStats after_b = stats();
  EXPECT_EQ(after_b.live_bytes, start.live_bytes + 3008);
  EXPECT_EQ(after_b.peak_bytes, start.live_bytes + 3008 + (1 << 20));
  EXPECT_GE(after_b.pooled_bytes, std::uint64_t{1} << 20);

  reset_peak();
  EXPECT_EQ(stats().peak_bytes, after_b.live_bytes);
  release(a);
  EXPECT_EQ(stats().live_bytes, start.live_bytes);
}

TEST(MemoryAllocator, TrimEmptiesThePool) {
  release(allocate(50000));
  ASSERT_GT(stats().pooled_bytes, 0u);
  trim();
  const MemoryStats trimmed = stats();
  EXPECT_EQ(trimmed.pooled_bytes, 0u);
  const Block block = allocate(50000);
  EXPECT_EQ(stats().pool_hits, trimmed.pool_hits);
  release(block);
}

TEST(MemoryAllocator, ReleasingNullIsANoOp) {
  const MemoryStats before = stats();
  release(Block{});
  const MemoryStats after = stats();
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.pooled_bytes, before.pooled_bytes);
}

TEST(MemoryAllocatorDeathTest, ReleasingAForeignSizeIsAnInternalError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(release(Block{allocate(100).ptr, 100}), "\\[internal\\] .*no size class");
}

#if defined(__SANITIZE_ADDRESS__)
TEST(MemoryAllocatorDeathTest, WritingIntoAReleasedBlockIsCaughtByAsan) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        const Block block = allocate(256);
        release(block);
        static_cast<volatile char*>(block.ptr)[100] = 1;
      },
      "use-after-poison");
}
#endif

}  // namespace
}  // namespace kiln::memory

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

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

// Above 4 KiB, released memory serves requests of any smaller size: the
// 2 MiB a step frees holds the two 1 MiB blocks it allocates next, without
// new memory from the system.
TEST(MemoryAllocator, ReleasedLargeBlockServesSmallerSizes) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  const Block big = allocate(2 * kMiB);
  release(big);
  const MemoryStats before = stats();
  const Block a = allocate(kMiB);
  const Block b = allocate(kMiB - 64);
  const MemoryStats after = stats();
  EXPECT_EQ(after.pool_hits, before.pool_hits + 2);
  auto* begin = static_cast<char*>(big.ptr);
  for (const Block& block : {a, b}) {
    EXPECT_GE(static_cast<char*>(block.ptr), begin);
    EXPECT_LE(static_cast<char*>(block.ptr) + block.bytes, begin + big.bytes);
  }
  release(a);
  release(b);
}

// Released neighbours merge: two adjacent 1 MiB blocks, once free, hold a
// block of their joint size at the first one's address.
TEST(MemoryAllocator, ReleasedNeighboursMerge) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  const Block a = allocate(kMiB);
  const Block b = allocate(kMiB);
  const Block c = allocate(kMiB);  // keeps the merged block from reaching further
  ASSERT_EQ(static_cast<char*>(b.ptr), static_cast<char*>(a.ptr) + kMiB + 64) << "a fresh mapping is cut in order";
  release(b);
  release(a);
  const Block joint = allocate(2 * kMiB + 64);
  EXPECT_EQ(joint.ptr, a.ptr);
  release(joint);
  release(c);
}

// A block of 2 MiB or more that takes new memory has its whole huge pages
// advised for transparent huge pages (smaps shows the range's VmFlags with
// "hg"). trim() first, so that no free block left by other tests serves it.
TEST(MemoryAllocator, LargeBlocksAreAdvisedForHugePages) {
  trim();
  const Block block = allocate(std::size_t{8} << 20);
  const auto inside = reinterpret_cast<std::uintptr_t>(block.ptr) + (std::uintptr_t{4} << 20);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in_range = false, advised = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t from = 0, to = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &from, &to) == 2) in_range = from <= inside && inside < to;
    if (in_range && line.rfind("VmFlags:", 0) == 0) advised = line.find(" hg") != std::string::npos;
  }
  EXPECT_TRUE(advised);
  release(block);
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

// trim() hands back the pages of a free block even when a live block keeps
// its mapping: the pool then counts nothing, and the live block is intact.
TEST(MemoryAllocator, TrimReturnsTheFreePagesBesideALiveBlock) {
  trim();
  const Block live = allocate(std::size_t{1} << 20);
  const Block freed = allocate(std::size_t{4} << 20);
  std::memset(live.ptr, 0x5a, live.bytes);
  std::memset(freed.ptr, 0xa5, freed.bytes);
  release(freed);
  ASSERT_GE(stats().pooled_bytes, freed.bytes);
  trim();
  EXPECT_EQ(stats().pooled_bytes, 0u);
  const auto* bytes = static_cast<const unsigned char*>(live.ptr);
  EXPECT_TRUE(std::all_of(bytes, bytes + live.bytes, [](unsigned char b) { return b == 0x5a; }));
  release(live);
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
  EXPECT_DEATH(release(Block{allocate(100000).ptr, 99968}), "\\[internal\\] .*allocated with 100032");
}

#if defined(__SANITIZE_ADDRESS__)
TEST(MemoryAllocatorDeathTest, WritingIntoAReleasedBlockIsCaughtByAsan) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (std::size_t bytes : {std::size_t{256}, std::size_t{100000}}) {
    EXPECT_DEATH(
        {
          const Block block = allocate(bytes);
          release(block);
          static_cast<volatile char*>(block.ptr)[100] = 1;
        },
        "use-after-poison")
        << bytes;
  }
}
#endif

}  // namespace
}  // namespace kiln::memory

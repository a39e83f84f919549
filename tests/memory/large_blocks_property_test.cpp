// Random sequences of large allocations and releases (the segment heap's cuts
// and merges): blocks never overlap, keep what was written to them, and once
// all are released and trimmed the pool holds nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include <kiln/memory/memory.h>

namespace kiln::memory {
namespace {

struct Held {
  Block block;
  unsigned char fill;
};

// Every live block's bytes still hold its fill.
void expect_intact(const Held& held) {
  const auto* bytes = static_cast<const unsigned char*>(held.block.ptr);
  const std::size_t mismatch =
      std::find_if(bytes, bytes + held.block.bytes, [&](unsigned char b) { return b != held.fill; }) - bytes;
  EXPECT_EQ(mismatch, held.block.bytes) << "block of " << held.block.bytes << " bytes changed at " << mismatch;
}

// Live ranges, by start: no block may begin before the previous one ends.
void expect_disjoint(const std::vector<Held>& live) {
  std::map<std::uintptr_t, std::size_t> ranges;
  for (const Held& h : live) ranges[reinterpret_cast<std::uintptr_t>(h.block.ptr)] = h.block.bytes;
  std::uintptr_t end = 0;
  for (auto [start, bytes] : ranges) {
    EXPECT_GE(start, end) << "blocks overlap";
    end = start + bytes;
  }
}

class LargeBlocks : public ::testing::TestWithParam<unsigned> {};

TEST_P(LargeBlocks, NeverOverlapAndKeepTheirContents) {
  std::mt19937 gen(GetParam());
  // Sizes from just above the small classes to a few MiB, as tensors come.
  std::uniform_int_distribution<std::size_t> size(4097, std::size_t{3} << 20);
  std::vector<Held> live;
  for (int step = 0; step < 400; ++step) {
    if (!live.empty() && gen() % 5 < 2) {
      const std::size_t victim = gen() % live.size();
      expect_intact(live[victim]);
      release(live[victim].block);
      live.erase(live.begin() + std::ptrdiff_t(victim));
      continue;
    }
    const Block block = allocate(size(gen));
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(block.ptr) % 64, 0u);
    const auto fill = static_cast<unsigned char>(gen());
    std::memset(block.ptr, fill, block.bytes);
    live.push_back({block, fill});
    if (step % 50 == 0) expect_disjoint(live);
  }
  expect_disjoint(live);
  for (const Held& h : live) {
    expect_intact(h);
    release(h.block);
  }
  trim();
  EXPECT_EQ(stats().pooled_bytes, 0u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, LargeBlocks, ::testing::Values(1u, 2u, 3u, 4u));

}  // namespace
}  // namespace kiln::memory

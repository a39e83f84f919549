// Shape buckets: exact up to 16, then up to the next value with two significant bits.
#include <gtest/gtest.h>

#include <bit>
#include <limits>
#include <vector>

#include "autotune/shape_bucket.h"

namespace kiln::autotune {
namespace {

TEST(ShapeBucket, SmallExtentsStayExact) {
  for (std::int64_t e = 0; e <= 16; ++e) EXPECT_EQ(bucket(e), e);
}

TEST(ShapeBucket, LargerExtentsRoundUpToTwoSignificantBits) {
  const std::vector<std::pair<std::int64_t, std::int64_t>> cases = {
      {17, 24},   {24, 24},   {25, 32},   {32, 32},   {33, 48},   {48, 48},      {49, 64},       {64, 64},
      {65, 96},   {90, 96},   {96, 96},   {97, 128},  {100, 128}, {128, 128},    {129, 192},     {500, 512},
      {512, 512}, {513, 768}, {768, 768}, {769, 1024}, {1000, 1024}, {3000, 3072}, {4097, 6144}};
  for (const auto& [extent, expected] : cases) EXPECT_EQ(bucket(extent), expected) << extent;
}

TEST(ShapeBucket, EveryBucketIsAFixedPointAndNotBelowItsExtent) {
  for (std::int64_t e = 17; e <= 5000; ++e) {
    const std::int64_t b = bucket(e);
    EXPECT_GE(b, e);
    EXPECT_EQ(bucket(b), b) << e;
    EXPECT_LE(std::popcount(static_cast<std::uint64_t>(b)), 2) << e;
    EXPECT_LT(b - e, e / 2 + 1) << e;  // never more than 50% padding
  }
}

TEST(ShapeBucket, HugeExtentsSaturate) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(bucket(kMax), kMax);
  EXPECT_EQ(bucket(std::int64_t{1} << 62), std::int64_t{1} << 62);
}

TEST(ShapeBucket, KeyJoinsBucketedExtents) {
  const std::vector<std::int64_t> gemm = {100, 500, 512};
  EXPECT_EQ(bucket_key(gemm), "128x512x512");
  const std::vector<std::int64_t> small = {1, 16, 17};
  EXPECT_EQ(bucket_key(small), "1x16x24");
  EXPECT_EQ(bucket_key(std::vector<std::int64_t>{}), "");
}

}  // namespace
}  // namespace kiln::autotune

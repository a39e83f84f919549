// The distributed samplers: shards that are disjoint and cover the dataset,
// padded to equal lengths with allow_duplicates, reordered per epoch.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include <kiln/data.h>

namespace {

using kiln::data::samplers::DistributedRandomSampler;
using kiln::data::samplers::DistributedSequentialSampler;

std::vector<std::size_t> drain(kiln::data::samplers::Sampler<>& s, std::size_t batch = 3) {
  std::vector<std::size_t> all;
  while (auto b = s.next(batch)) all.insert(all.end(), b->begin(), b->end());
  return all;
}

TEST(DistributedSampler, SequentialShardsAreStridedAndPaddedToEqualLength) {
  DistributedSequentialSampler r0(7, 3, 0), r1(7, 3, 1), r2(7, 3, 2);
  EXPECT_EQ(drain(r0), (std::vector<std::size_t>{0, 3, 6}));
  EXPECT_EQ(drain(r1), (std::vector<std::size_t>{1, 4, 0}));  // padded from the start
  EXPECT_EQ(drain(r2), (std::vector<std::size_t>{2, 5, 1}));
  DistributedSequentialSampler dropped(7, 3, 2, false);
  EXPECT_EQ(drain(dropped), (std::vector<std::size_t>{2, 5}));
}

TEST(DistributedSampler, RandomShardsAreDisjointCoverEverythingAndChangePerEpoch) {
  const std::size_t n = 10, ranks = 2;
  std::vector<std::size_t> epoch0;
  for (std::size_t epoch : {0, 1}) {
    std::vector<std::size_t> seen;
    for (std::size_t r = 0; r < ranks; ++r) {
      DistributedRandomSampler s(n, ranks, r);
      s.set_epoch(epoch);
      s.reset();
      auto shard = drain(s);
      EXPECT_EQ(shard.size(), n / ranks);
      seen.insert(seen.end(), shard.begin(), shard.end());
    }
    EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()).size(), n) << "epoch " << epoch;
    if (epoch == 0) epoch0 = seen;
    else EXPECT_NE(seen, epoch0);
  }
}

TEST(DistributedSampler, ARankOutsideTheReplicasIsAValueError) {
  try {
    DistributedRandomSampler s(10, 2, 2);
    FAIL();
  } catch (const kiln::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 2 is not in [0, num_replicas = 2)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(DistributedSequentialSampler(10, 0, 0), kiln::ValueError);
}

}  // namespace

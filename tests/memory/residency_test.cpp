// The residency registry and the eviction policies, with stand-in residents:
// which value each policy evicts first, that make_room frees what it is asked
// for and no more than it must, and that it says so when nothing is left.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <kiln/error.h>

#include "memory/residency.h"
#include "profiler/enabled.h"

namespace kiln::memory {
namespace {

struct FakeResident final : Resident {
  FakeResident(std::size_t bytes, double cost_ns, double idle, bool evictable)
      : bytes(bytes), cost_ns(cost_ns), own_cost_ns(cost_ns), idle(idle), evictable(evictable) {}
  std::size_t resident_bytes() const override { return evicted ? 0 : bytes; }
  const char* why_not_evictable() const override { return evictable ? nullptr : "a stand-in leaf"; }
  Candidate candidate(std::uint64_t) const override { return {bytes, cost_ns, idle, evicted_producers, own_cost_ns}; }
  bool unreferenced() const override { return no_handle; }
  bool evict() override {
    evicted = true;
    return true;
  }
  std::string what() const override { return "stand-in of " + std::to_string(bytes) + " bytes"; }

  std::size_t bytes;
  double cost_ns, own_cost_ns, idle;
  bool evictable;
  std::uint32_t evicted_producers = 0;
  bool no_handle = false;
  bool evicted = false;
};

// Registers stand-ins for one test and removes what is left of them after.
class Residency : public ::testing::Test {
 protected:
  FakeResident& add(std::size_t bytes, double cost_ns, double idle, bool evictable = true) {
    fakes_.push_back(std::make_unique<FakeResident>(bytes, cost_ns, idle, evictable));
    std::lock_guard lock(residency_mutex());
    add_resident(*fakes_.back());
    return *fakes_.back();
  }
  // Under each policy, make_room(1) evicts `goes` and not `stays`; `goes`
  // is then registered again for the next policy.
  static void expect_under_every_policy(FakeResident& goes, const FakeResident& stays) {
    for (Policy p : {Policy::Dtr, Policy::DtrLocal, Policy::Lru, Policy::Largest}) {
      set_policy(p);
      goes.evicted = false;
      ASSERT_TRUE(make_room(1));
      EXPECT_TRUE(goes.evicted) << policy_name(p);
      EXPECT_FALSE(stays.evicted) << policy_name(p);
      std::lock_guard lock(residency_mutex());
      add_resident(goes);
    }
  }
  void TearDown() override {
    std::lock_guard lock(residency_mutex());
    for (auto& f : fakes_) remove_resident(*f);
    set_policy(Policy::Dtr);
  }

 private:
  std::vector<std::unique_ptr<FakeResident>> fakes_;
};

TEST_F(Residency, DtrEvictsTheCheapestPerByteAndIdleTimeFirst) {
  FakeResident& costly = add(1000, 1e6, 1e6);
  FakeResident& cheap = add(1000, 1e3, 1e6);
  FakeResident& recent = add(1000, 1e3, 1e3);
  set_policy(Policy::Dtr);
  ASSERT_TRUE(make_room(1));
  EXPECT_TRUE(cheap.evicted);
  EXPECT_FALSE(costly.evicted);
  EXPECT_FALSE(recent.evicted);
}

// DTR's local variant scores a value by its own cost: one behind evicted
// producers (a large e*) is no longer protected by theirs.
TEST_F(Residency, DtrLocalIgnoresTheCostOfEvictedNeighbours) {
  FakeResident& behind_chain = add(1000, 1e6, 1e3);
  behind_chain.own_cost_ns = 1e2;
  behind_chain.evicted_producers = 3;
  FakeResident& alone = add(1000, 1e4, 1e3);
  set_policy(Policy::Dtr);
  ASSERT_TRUE(make_room(1));
  EXPECT_TRUE(alone.evicted);
  EXPECT_FALSE(behind_chain.evicted);
  alone.evicted = false;
  {
    std::lock_guard lock(residency_mutex());
    add_resident(alone);
  }
  set_policy(Policy::DtrLocal);
  ASSERT_TRUE(make_room(1));
  EXPECT_TRUE(behind_chain.evicted);
  EXPECT_FALSE(alone.evicted);
}

TEST_F(Residency, LruEvictsTheLongestUnusedAndLargestTheBiggest) {
  FakeResident& stale = add(100, 1e9, 1e9);
  FakeResident& big = add(10000, 1, 1e3);
  set_policy(Policy::Lru);
  ASSERT_TRUE(make_room(1));
  EXPECT_TRUE(stale.evicted);
  EXPECT_FALSE(big.evicted);
  set_policy(Policy::Largest);
  ASSERT_TRUE(make_room(1));
  EXPECT_TRUE(big.evicted);
}

TEST_F(Residency, MakeRoomFreesEnoughAndSaysWhenNothingIsLeft) {
  for (int i = 0; i < 4; ++i) add(1000, 1e3, 1e6);
  FakeResident& leaf = add(5000, 1e3, 1e9, false);
  const ResidencyStats before = residency_stats();
  ASSERT_TRUE(make_room(2500));
  const ResidencyStats after = residency_stats();
  EXPECT_EQ(after.evictions - before.evictions, 3u) << "three of 1000 bytes free 2500, two would not";
  EXPECT_EQ(after.bytes_evicted - before.bytes_evicted, 3000u);
  EXPECT_EQ(after.ooms_avoided - before.ooms_avoided, 1u);
  EXPECT_FALSE(make_room(2000)) << "one evictable of 1000 bytes left";
  EXPECT_FALSE(leaf.evicted);
  const std::string report = residents_report();
  EXPECT_NE(report.find("stand-in of 5000 bytes -- a stand-in leaf"), std::string::npos) << report;
}

TEST_F(Residency, AValueAtTheEndOfALongChainOfEvictedProducersGoesLast) {
  // By its score alone the long chain would go first (cheap, big, stale).
  FakeResident& chained = add(100000, 1, 1e9);
  chained.evicted_producers = kLongChain + 1;
  FakeResident& plain = add(1000, 1e6, 10);
  expect_under_every_policy(plain, chained);
  plain.evictable = false;
  ASSERT_TRUE(make_room(1)) << "when nothing else can go, the chained value does";
  EXPECT_TRUE(chained.evicted);
}

// A value no handle refers to is read again only if a value made from it
// is recomputed: it goes before any the program holds, whatever their
// scores, and among many (where the others are sampled) too.
TEST_F(Residency, AValueNoHandleRefersToGoesFirstUnderEveryPolicy) {
  for (int i = 0; i < 400; ++i) add(1000, 1, 1e9);  // cheap, big and stale: first by every score
  FakeResident& dead = add(100, 1e9, 1);
  dead.no_handle = true;
  FakeResident& dead_long = add(100000, 1, 1e9);  // but at the end of a long chain: last, as any
  dead_long.no_handle = true;
  dead_long.evicted_producers = kLongChain + 1;
  const ResidencyStats before = residency_stats();
  expect_under_every_policy(dead, dead_long);
  EXPECT_EQ(residency_stats().evictions - before.evictions, 4u) << "one value each time";
}

TEST_F(Residency, AmongManyItSamplesAndStillFindsAnEvictableValue) {
  // 10,000 leaves and one evictable value: the sample (about sqrt(N)) may
  // miss it, and then every resident is looked at.
  for (int i = 0; i < 10000; ++i) add(64, 1, 1, false);
  FakeResident& only = add(64, 1, 1);
  ASSERT_TRUE(make_room(64));
  EXPECT_TRUE(only.evicted);
}

TEST(EvictionPolicy, IsNamedByOneOfFourWords) {
  EXPECT_EQ(policy_named("dtr"), Policy::Dtr);
  EXPECT_EQ(policy_named("dtr_local"), Policy::DtrLocal);
  EXPECT_EQ(policy_named("lru"), Policy::Lru);
  EXPECT_EQ(policy_named("largest"), Policy::Largest);
  for (const char* bad : {"", "DTR", "fifo"}) {
    try {
      policy_named(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kiln::memory

// ConfigSpace enumeration, sampling and membership, and the text form of a Config.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <stdexcept>

#include "autotune/config_space.h"

namespace kiln::autotune {
namespace {

ConfigSpace three_knobs() {
  ConfigSpace space;
  space.add("mc", {32, 64, 96}).add("kc", {128, 256}).add("unroll", {1, 2, 4, 8});
  return space;
}

TEST(ConfigSpace, EnumerationCoversEveryCombinationExactlyOnce) {
  const ConfigSpace space = three_knobs();
  ASSERT_EQ(space.size(), 24u);
  std::set<Config> seen;
  for (std::uint64_t i = 0; i < space.size(); ++i) {
    const Config config = space.at(i);
    EXPECT_TRUE(space.contains(config)) << to_string(config);
    EXPECT_TRUE(seen.insert(config).second) << "index " << i << " repeats " << to_string(config);
  }
  std::set<Config> product;
  for (std::int64_t mc : {32, 64, 96}) {
    for (std::int64_t kc : {128, 256}) {
      for (std::int64_t unroll : {1, 2, 4, 8}) product.insert(Config{{"mc", mc}, {"kc", kc}, {"unroll", unroll}});
    }
  }
  EXPECT_EQ(seen, product);
}

TEST(ConfigSpace, FirstKnobVariesFastest) {
  const ConfigSpace space = three_knobs();
  EXPECT_EQ(space.at(0), (Config{{"mc", 32}, {"kc", 128}, {"unroll", 1}}));
  EXPECT_EQ(space.at(1), (Config{{"mc", 64}, {"kc", 128}, {"unroll", 1}}));
  EXPECT_EQ(space.at(3), (Config{{"mc", 32}, {"kc", 256}, {"unroll", 1}}));
  EXPECT_EQ(space.at(23), (Config{{"mc", 96}, {"kc", 256}, {"unroll", 8}}));
  EXPECT_THROW(space.at(24), std::out_of_range);
}

TEST(ConfigSpace, EmptySpaceHasOneEmptyConfig) {
  const ConfigSpace space;
  EXPECT_EQ(space.size(), 1u);
  EXPECT_EQ(space.at(0), Config{});
  EXPECT_TRUE(space.contains(Config{}));
}

TEST(ConfigSpace, SizeSaturates) {
  ConfigSpace space;
  std::vector<std::int64_t> values(1 << 16);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int64_t>(i);
  for (const char* name : {"a", "b", "c", "d"}) space.add(name, values);
  EXPECT_EQ(space.size(), std::numeric_limits<std::uint64_t>::max());  // 2^64 does not fit
}

TEST(ConfigSpace, ContainsNeedsEveryKnobWithAnAllowedValueAndNoOther) {
  const ConfigSpace space = three_knobs();
  EXPECT_TRUE(space.contains({{"mc", 64}, {"kc", 256}, {"unroll", 2}}));
  EXPECT_FALSE(space.contains({{"mc", 65}, {"kc", 256}, {"unroll", 2}}));             // value not allowed
  EXPECT_FALSE(space.contains({{"mc", 64}, {"unroll", 2}}));                          // kc missing
  EXPECT_FALSE(space.contains({{"mc", 64}, {"kc", 256}, {"unroll", 2}, {"nr", 4}}));  // unknown knob
}

TEST(ConfigSpace, SampleStaysInsideAndReachesEveryValue) {
  const ConfigSpace space = three_knobs();
  std::mt19937_64 rng(7);
  std::set<std::int64_t> unrolls;
  for (int i = 0; i < 200; ++i) {
    const Config config = space.sample(rng);
    EXPECT_TRUE(space.contains(config)) << to_string(config);
    unrolls.insert(config.at("unroll"));
  }
  EXPECT_EQ(unrolls, (std::set<std::int64_t>{1, 2, 4, 8}));
}

TEST(ConfigSpace, AddRejectsEmptyDuplicateAndBadNames) {
  ConfigSpace space;
  space.add("mc", {32, 64});
  EXPECT_THROW(space.add("kc", {}), std::invalid_argument);
  EXPECT_THROW(space.add("kc", {1, 2, 1}), std::invalid_argument);
  EXPECT_THROW(space.add("mc", {1}), std::invalid_argument);
  EXPECT_THROW(space.add("", {1}), std::invalid_argument);
  EXPECT_THROW(space.add("a=b", {1}), std::invalid_argument);
  EXPECT_THROW(space.add("a,b", {1}), std::invalid_argument);
  EXPECT_EQ(space.knobs().size(), 1u);  // a failed add() leaves the space as it was
  EXPECT_EQ(space.size(), 2u);
}

TEST(ConfigText, SortedByName) {
  EXPECT_EQ(to_string(Config{{"mc", 96}, {"kc", 384}}), "kc=384,mc=96");
  EXPECT_EQ(to_string(Config{{"x", -3}}), "x=-3");
  EXPECT_EQ(to_string(Config{}), "");
}

TEST(ConfigText, ParseIsTheInverse) {
  const ConfigSpace space = three_knobs();
  for (std::uint64_t i = 0; i < space.size(); ++i) {
    const Config config = space.at(i);
    EXPECT_EQ(parse_config(to_string(config)), config);
  }
  EXPECT_EQ(parse_config(""), Config{});
  EXPECT_EQ(parse_config("kc=384,mc=96"), (Config{{"kc", 384}, {"mc", 96}}));
  EXPECT_EQ(parse_config("mc=96,kc=384"), (Config{{"kc", 384}, {"mc", 96}}));
  EXPECT_EQ(parse_config("big=9223372036854775807,neg=-1"),
            (Config{{"big", std::numeric_limits<std::int64_t>::max()}, {"neg", -1}}));
}

TEST(ConfigText, ParseRejectsGarbage) {
  for (const char* bad : {"kc", "kc=", "=3", "kc=3,", ",kc=3", "kc=3,,mc=4", "kc=3x", "kc=0x10", "kc= 3", " kc=3",
                          "kc=3,kc=4", "k c=3", "kc=99999999999999999999", "kc=3;mc=4", "kc==3"}) {
    EXPECT_EQ(parse_config(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace kiln::autotune

// rand, randn, randint, rand_like, randn_like and manual_seed: ranges,
// dtypes, determinism under a seed, distinct streams, and loose moments
// (deterministic: a fixed seed gives fixed numbers, so these cannot flake).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;

TEST(Random, RandIsInUnitIntervalWithMeanNearHalf) {
  kiln::manual_seed(1);
  Tensor r = kiln::rand({100000});
  EXPECT_EQ(r.dtype(), kiln::kFloat32);
  std::vector<float> v = r.to_vector<float>();
  EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0f);
  EXPECT_LT(*std::max_element(v.begin(), v.end()), 1.0f);
  EXPECT_NEAR(r.mean().item<double>(), 0.5, 0.01);
  EXPECT_NEAR(r.var().item<double>(), 1.0 / 12, 0.005);
  // each tenth of [0, 1) holds about a tenth of the samples
  std::vector<int> bins(10);
  for (float x : v) ++bins[std::min(9, static_cast<int>(x * 10))];
  for (int b : bins) EXPECT_NEAR(b, 10000, 500);
}

TEST(Random, RandnHasMeanZeroAndUnitVariance) {
  kiln::manual_seed(2);
  Tensor r = kiln::randn({100000}, kiln::kFloat64);
  EXPECT_EQ(r.dtype(), kiln::kFloat64);
  EXPECT_NEAR(r.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(r.std().item<double>(), 1.0, 0.02);
  double within1 = ((r.abs() < 1.0).sum().item<double>()) / 100000;
  EXPECT_NEAR(within1, 0.6827, 0.01);
}

TEST(Random, RandintRangeAndDtype) {
  kiln::manual_seed(3);
  Tensor a = kiln::randint(10, {5000});
  EXPECT_EQ(a.dtype(), kiln::kInt64);
  std::vector<std::int64_t> v = a.to_vector<std::int64_t>();
  std::set<std::int64_t> seen(v.begin(), v.end());
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(*seen.rbegin(), 9);
  Tensor b = kiln::randint(-3, 3, {2, 1000}, kiln::kInt32);
  EXPECT_EQ(b.dtype(), kiln::kInt32);
  EXPECT_EQ(b.sizes().vec(), (std::vector<std::int64_t>{2, 1000}));
  EXPECT_EQ(b.amin().item<std::int64_t>(), -3);
  EXPECT_EQ(b.amax().item<std::int64_t>(), 2);
}

TEST(Random, ManualSeedReproducesTheSameNumbers) {
  kiln::manual_seed(42);
  std::vector<float> a1 = kiln::rand({257}).to_vector<float>();
  std::vector<float> b1 = kiln::randn({3, 5}).to_vector<float>();
  std::vector<std::int64_t> c1 = kiln::randint(100, {64}).to_vector<std::int64_t>();
  kiln::manual_seed(42);
  std::vector<float> a2 = kiln::rand({257}).to_vector<float>();
  std::vector<float> b2 = kiln::randn({3, 5}).to_vector<float>();
  std::vector<std::int64_t> c2 = kiln::randint(100, {64}).to_vector<std::int64_t>();
  EXPECT_EQ(a1, a2);
  EXPECT_EQ(b1, b2);
  EXPECT_EQ(c1, c2);
}

TEST(Random, SeedGivesSameNumbersWhetherReadEagerlyOrLate) {
  // Reading between calls cuts the trace; the stream must not depend on where segments end.
  kiln::manual_seed(7);
  Tensor a = kiln::rand({10});
  Tensor b = kiln::rand({10});
  std::vector<float> late = kiln::cat({a, b}).to_vector<float>();
  kiln::manual_seed(7);
  std::vector<float> first = kiln::rand({10}).to_vector<float>();
  std::vector<float> second = kiln::rand({10}).to_vector<float>();
  first.insert(first.end(), second.begin(), second.end());
  EXPECT_EQ(late, first);
}

TEST(Random, SuccessiveCallsAndDifferentSeedsDiffer) {
  kiln::manual_seed(5);
  std::vector<float> a = kiln::rand({16}).to_vector<float>();
  std::vector<float> b = kiln::rand({16}).to_vector<float>();
  kiln::manual_seed(6);
  std::vector<float> c = kiln::rand({16}).to_vector<float>();
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
}

TEST(Random, RepeatedSameShapeDrawsStayDistinctOnceHot) {
  // The same rand segment recurring must not replay one offset (e.g. after compilation).
  kiln::manual_seed(11);
  std::set<float> firsts;
  for (int i = 0; i < 40; ++i) firsts.insert(kiln::rand({4}).sum().item<float>());
  EXPECT_EQ(firsts.size(), 40u);
}

TEST(Random, LikeVariantsFollowTheSeed) {
  Tensor proto = kiln::zeros({3, 4}, kiln::kFloat64);
  kiln::manual_seed(9);
  std::vector<double> a = kiln::randn_like(proto).to_vector<double>();
  std::vector<double> r = kiln::rand_like(proto).to_vector<double>();
  kiln::manual_seed(9);
  EXPECT_EQ(kiln::randn_like(proto).to_vector<double>(), a);
  EXPECT_EQ(kiln::rand_like(proto).to_vector<double>(), r);
  for (double x : r) {
    EXPECT_GE(x, 0.0);
    EXPECT_LT(x, 1.0);
  }
}

TEST(Random, ZeroSizeRandomTensors) {
  EXPECT_EQ(kiln::rand({0, 3}).numel(), 0);
  EXPECT_EQ(kiln::randn({0}).to_vector<float>().size(), 0u);
  EXPECT_EQ(kiln::randint(5, {0}).numel(), 0);
}

}  // namespace

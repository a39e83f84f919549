// max, min (whole and with dim -> (values, indices)), amax, amin, argmax,
// argmin: every dtype, dims and keepdim, ties (LibTorch returns the first
// index), non-contiguous inputs. All results are exact.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;
using kref::Ref;
using kref::Shape;

// Small integers (many ties) in [-4, 4].
Ref ints(const Shape& s, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(-4, 4);
  Ref r = Ref::filled(s, 0);
  for (double& x : r.v) x = d(gen);
  return r;
}

class MinMax : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(MinMax, WholeTensorMaxMinAmaxAmin) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(ints({3, 4, 5}, 1), dt);
  Tensor x = kref::make(a, dt);
  const double mx = kref::max_of(a.v), mn = kref::min_of(a.v);
  EXPECT_EQ(x.max().item<double>(), mx);
  EXPECT_EQ(kiln::min(x).item<double>(), mn);
  EXPECT_EQ(x.amax().item<double>(), mx);
  EXPECT_EQ(kiln::amin(x).item<double>(), mn);
  EXPECT_EQ(x.max().dtype(), dt);
  EXPECT_EQ(x.amin().dtype(), dt);
  EXPECT_EQ(x.max().dim(), 0);
}

TEST_P(MinMax, MaxAndMinAlongADimGiveValuesAndFirstIndices) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(ints({3, 4, 5}, 2), dt);
  Tensor x = kref::make(a, dt);
  for (std::int64_t d : {0, 1, 2, -1, -3}) {
    for (bool keep : {false, true}) {
      SCOPED_TRACE("dim " + std::to_string(d) + (keep ? " keepdim" : ""));
      auto [vmax, imax] = x.max(d, keep);
      auto [vmin, imin] = kiln::min(x, d, keep);
      EXPECT_EQ(vmax.dtype(), dt);
      EXPECT_EQ(imax.dtype(), kiln::kInt64);
      EXPECT_TRUE(kref::close(vmax, kref::reduce(a, {d}, keep, kref::max_of), kref::kExact));
      EXPECT_TRUE(kref::close(imax, kref::reduce(a, {d}, keep, kref::argmax_of), kref::kExact));
      EXPECT_TRUE(kref::close(vmin, kref::reduce(a, {d}, keep, kref::min_of), kref::kExact));
      EXPECT_TRUE(kref::close(imin, kref::reduce(a, {d}, keep, kref::argmin_of), kref::kExact));
    }
  }
}

TEST_P(MinMax, AmaxAminOverDimLists) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(ints({3, 4, 5}, 3), dt);
  Tensor x = kref::make(a, dt);
  const std::vector<std::vector<std::int64_t>> lists = {{0}, {-1}, {0, 2}, {1, 2}, {0, 1, 2}};
  for (const auto& dims : lists) {
    for (bool keep : {false, true}) {
      SCOPED_TRACE(kref::str(dims) + (keep ? " keepdim" : ""));
      EXPECT_TRUE(kref::close(x.amax(dims, keep), kref::reduce(a, dims, keep, kref::max_of), kref::kExact));
      EXPECT_TRUE(kref::close(kiln::amin(x, dims, keep), kref::reduce(a, dims, keep, kref::min_of), kref::kExact));
    }
  }
}

TEST_P(MinMax, ArgmaxArgminWholeAndAlongDims) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(ints({4, 6}, 4), dt);
  Tensor x = kref::make(a, dt);
  Tensor am = x.argmax();
  EXPECT_EQ(am.dtype(), kiln::kInt64);
  EXPECT_EQ(am.dim(), 0);
  EXPECT_EQ(am.item<std::int64_t>(), static_cast<std::int64_t>(kref::argmax_of(a.v)));
  EXPECT_EQ(kiln::argmin(x).item<std::int64_t>(), static_cast<std::int64_t>(kref::argmin_of(a.v)));
  for (std::int64_t d : {0, 1, -1}) {
    for (bool keep : {false, true}) {
      SCOPED_TRACE("dim " + std::to_string(d) + (keep ? " keepdim" : ""));
      EXPECT_TRUE(kref::close(x.argmax(d, keep), kref::reduce(a, {d}, keep, kref::argmax_of), kref::kExact));
      EXPECT_TRUE(kref::close(kiln::argmin(x, d, keep), kref::reduce(a, {d}, keep, kref::argmin_of), kref::kExact));
    }
  }
}

TEST_P(MinMax, NonContiguousInputsIndexInTheViewsCoordinates) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(ints({4, 6}, 5), dt);
  Tensor x = kref::make(a, dt);
  Ref at = kref::transpose(a, 0, 1);
  EXPECT_TRUE(kref::close(x.t().argmax(1), kref::reduce(at, {1}, false, kref::argmax_of), kref::kExact));
  EXPECT_EQ(x.t().argmax().item<std::int64_t>(), static_cast<std::int64_t>(kref::argmax_of(at.v)));
  Ref sl = kref::slice(a, 1, 1, 6, 2);  // [4, 3]
  auto [v, i] = x.slice(1, 1, 6, 2).max(0);
  EXPECT_TRUE(kref::close(v, kref::reduce(sl, {0}, false, kref::max_of), kref::kExact));
  EXPECT_TRUE(kref::close(i, kref::reduce(sl, {0}, false, kref::argmax_of), kref::kExact));
}

// Over the rows of a wide tensor the outputs are folded side by side, 16 at
// a time, then the rest one by one: 83 columns take both, and blocks of 64.
TEST_P(MinMax, OverTheRowsOfAWideTensor) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(ints({37, 83}, 6), dt);
  Tensor x = kref::make(a, dt);
  auto [vmax, imax] = x.max(0);
  EXPECT_TRUE(kref::close(vmax, kref::reduce(a, {0}, false, kref::max_of), kref::kExact));
  EXPECT_TRUE(kref::close(imax, kref::reduce(a, {0}, false, kref::argmax_of), kref::kExact));
  EXPECT_TRUE(kref::close(x.argmin(0), kref::reduce(a, {0}, false, kref::argmin_of), kref::kExact));
  EXPECT_TRUE(kref::close(x.amin({0}, true), kref::reduce(a, {0}, true, kref::min_of), kref::kExact));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, MinMax, ::testing::Values(kiln::kFloat32, kiln::kFloat64, kiln::kInt32, kiln::kInt64),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

TEST(MinMaxTies, FirstOccurrenceWinsEverywhere) {
  Tensor x = kiln::tensor({{3.0f, 7.0f, 7.0f, 1.0f}, {1.0f, 1.0f, 0.0f, 0.0f}});
  EXPECT_EQ(x.argmax().item<std::int64_t>(), 1);
  EXPECT_EQ(x.argmin().item<std::int64_t>(), 6);
  EXPECT_TRUE(kref::equals(x.argmax(1), {2}, {1, 0}));
  EXPECT_TRUE(kref::equals(x.argmin(1), {2}, {3, 2}));
  auto [v, i] = x.max(1, true);
  EXPECT_TRUE(kref::equals(v, {2, 1}, {7, 1}));
  EXPECT_TRUE(kref::equals(i, {2, 1}, {1, 0}));
}

TEST(MinMaxBool, MaxOfBoolIsBool) {
  Tensor b = kiln::tensor({false, true, false});
  EXPECT_EQ(b.max().dtype(), kiln::kBool);
  EXPECT_TRUE(b.max().item<bool>());
  EXPECT_FALSE(b.amin().item<bool>());
  EXPECT_EQ(b.argmax().item<std::int64_t>(), 1);
}

TEST(MinMaxEmpty, ReducingANonEmptyDimOfAZeroSizeTensorGivesZeroSize) {
  Tensor e = kiln::zeros({0, 3});
  Tensor m = e.amax({1});
  EXPECT_EQ(m.sizes().vec(), (std::vector<std::int64_t>{0}));
  auto [v, i] = e.max(1);
  EXPECT_EQ(v.sizes().vec(), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(i.sizes().vec(), (std::vector<std::int64_t>{0}));
}

}  // namespace

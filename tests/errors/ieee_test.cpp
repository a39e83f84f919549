// NaN and Inf are data, not errors: they flow through every op as IEEE 754
// (and LibTorch) says, for float32 and float64. Nothing throws.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;
using kref::Ref;

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

class Ieee : public ::testing::TestWithParam<kiln::ScalarType> {
 protected:
  Tensor t(std::vector<double> v) { return kiln::tensor(v, kiln::TensorOptions(GetParam())); }
  static ::testing::AssertionResult is(const Tensor& got, std::vector<double> want) {
    return kref::close(got, Ref({static_cast<std::int64_t>(want.size())}, want), kref::tol_for(got.dtype()));
  }
};

TEST_P(Ieee, TranscendentalsAtInfinityAndOutsideTheirDomain) {
  EXPECT_TRUE(is(t({kInf, -kInf, 0}).exp(), {kInf, 0, 1}));
  EXPECT_TRUE(is(t({-1, 0, kInf, kNaN}).log(), {kNaN, -kInf, kInf, kNaN}));
  EXPECT_TRUE(is(t({-1, kInf}).sqrt(), {kNaN, kInf}));
  EXPECT_TRUE(is(t({0, -1}).rsqrt(), {kInf, kNaN}));
  EXPECT_TRUE(is(t({-1, -2}).log1p(), {-kInf, kNaN}));
  EXPECT_TRUE(is(t({kInf, -kInf, kNaN}).sigmoid(), {1, 0, kNaN}));
  EXPECT_TRUE(is(t({kInf, -kInf, kNaN}).tanh(), {1, -1, kNaN}));
  EXPECT_TRUE(is(t({kInf, kNaN}).sin(), {kNaN, kNaN}));
}

TEST_P(Ieee, DivisionByZero) {
  EXPECT_TRUE(is(t({0, 1, -1}) / t({0, 0, 0}), {kNaN, kInf, -kInf}));
  EXPECT_TRUE(is(t({1, 2}) / 0, {kInf, kInf}));
  EXPECT_TRUE(is(t({kInf}) - t({kInf}), {kNaN}));
  EXPECT_TRUE(is(t({kInf}) * 0, {kNaN}));
}

TEST_P(Ieee, ReluAbsNegClampKeepNaN) {
  EXPECT_TRUE(is(t({kNaN, -kInf, kInf}).relu(), {kNaN, 0, kInf}));
  EXPECT_TRUE(is(kiln::abs(t({kNaN, -kInf})), {kNaN, kInf}));
  EXPECT_TRUE(is(-t({kNaN, kInf}), {kNaN, -kInf}));
  EXPECT_TRUE(is(t({kNaN, -kInf, kInf, 0.5}).clamp(0, 1), {kNaN, 0, 1, 0.5}));
}

TEST_P(Ieee, MaxMinWithNaNAreNaN) {
  Tensor x = t({1, kNaN, 3});
  EXPECT_TRUE(std::isnan(x.max().item<double>()));
  EXPECT_TRUE(std::isnan(x.min().item<double>()));
  EXPECT_TRUE(std::isnan(x.amax().item<double>()));
  EXPECT_TRUE(std::isnan(x.amin({0}).item<double>()));
  EXPECT_EQ(x.argmax().item<std::int64_t>(), 1);  // LibTorch treats NaN as the maximum
  EXPECT_EQ(x.argmin().item<std::int64_t>(), 1);  // ... and as the minimum
  auto [v, i] = x.reshape({1, 3}).max(1);
  EXPECT_TRUE(std::isnan(v.item<double>()));
  EXPECT_EQ(i.item<std::int64_t>(), 1);
  EXPECT_TRUE(is(kiln::maximum(t({kNaN, 1, kNaN}), t({0, kNaN, kNaN})), {kNaN, kNaN, kNaN}));
  EXPECT_TRUE(is(kiln::minimum(t({kNaN, 1}), t({0, kNaN})), {kNaN, kNaN}));
  EXPECT_TRUE(is(kiln::maximum(t({kInf, -kInf}), t({1, 1})), {kInf, 1}));
}

TEST_P(Ieee, ReductionsWithInfinityAndNaN) {
  EXPECT_EQ(t({1, kInf, 2}).sum().item<double>(), kInf);
  EXPECT_TRUE(std::isnan(t({kInf, -kInf}).sum().item<double>()));
  EXPECT_TRUE(std::isnan(t({1, kNaN}).mean().item<double>()));
  EXPECT_EQ(t({-kInf, 2}).prod().item<double>(), -kInf);
  EXPECT_NEAR(t({-kInf, 2}).logsumexp({0}).item<double>(), 2.0, 1e-6);
  EXPECT_EQ(t({kInf, 2}).logsumexp({0}).item<double>(), kInf);
  EXPECT_TRUE(std::isnan(t({3}).var().item<double>()));  // unbiased with one element: 0 / 0
  EXPECT_EQ(t({3}).var(false).item<double>(), 0.0);
}

TEST_P(Ieee, SoftmaxOfARowWithNaNIsNaN) {
  Tensor s = t({0, kNaN, 1}).softmax(0);
  for (double v : s.to_vector<double>()) EXPECT_TRUE(std::isnan(v));
}

TEST_P(Ieee, ComparisonsWithNaNAreFalseExceptNe) {
  Tensor a = t({kNaN, kNaN, 1}), b = t({kNaN, 1, kInf});
  EXPECT_TRUE(kref::equals(a == b, {3}, {0, 0, 0}));
  EXPECT_TRUE(kref::equals(a != b, {3}, {1, 1, 1}));
  EXPECT_TRUE(kref::equals(a < b, {3}, {0, 0, 1}));
  EXPECT_TRUE(kref::equals(a >= b, {3}, {0, 0, 0}));
  EXPECT_TRUE(kref::equals(kiln::logical_not(a), {3}, {0, 0, 0}));  // NaN is nonzero: true
}

TEST_P(Ieee, MatmulPropagatesNaNAndInfinity) {
  Tensor m = t({kNaN, 1, 0, 1}).reshape({2, 2});
  Tensor v = t({0, 1});
  std::vector<double> r = kiln::matmul(m, v).to_vector<double>();
  EXPECT_TRUE(std::isnan(r[0]));  // NaN * 0 + 1 * 1
  EXPECT_EQ(r[1], 1.0);
  EXPECT_TRUE(std::isnan(kiln::matmul(t({kInf, 1}), t({0, 1})).item<double>()));
}

TEST_P(Ieee, WhereSelectsAroundNaNWithoutTouchingIt) {
  Tensor x = t({kNaN, 4, -1});
  Tensor out = kiln::where(x > 0, x.sqrt(), kiln::zeros_like(x));
  EXPECT_TRUE(is(out, {0, 2, 0}));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Ieee, ::testing::Values(kiln::kFloat32, kiln::kFloat64),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

TEST(IeeeInt, IntegerTrueDivisionByZeroGivesInfinityAndNaN) {
  Tensor a = kiln::tensor({1, 0, -1}, kiln::kInt32), z = kiln::zeros({3}, kiln::kInt32);
  std::vector<float> r = (a / z).to_vector<float>();
  EXPECT_EQ(r[0], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(r[1]));
  EXPECT_EQ(r[2], -std::numeric_limits<float>::infinity());
}

}  // namespace

// In-place ops (add_ sub_ mul_ div_ zero_ fill_ copy_ clamp_ relu_ and the
// compound operators): values, broadcasting of the operand, dtype
// conversion into self, the return value (self, for chaining), and
// DtypeError when self's dtype cannot hold the result (LibTorch's canCast).
#include <gtest/gtest.h>

#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;
using kref::Ref;

class InPlace : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(InPlace, ArithmeticWithTensorsAndNumbers) {
  const kiln::ScalarType dt = GetParam();
  Ref a({2, 3}, {1, 2, 3, 4, 5, 6}), row({3}, {1, 0, 2});
  Tensor x = kref::make(a, dt);
  x.add_(kref::make(row, dt));  // broadcast [3] over [2, 3]
  x.sub_(1);
  x.mul_(kref::make(Ref({2, 1}, {2, 3}), dt));
  x.add_(kref::make(row, dt), 2);
  x.sub_(kref::make(row, dt), 3);
  Ref want = kref::zip(kref::zip(kref::zip(a, row, std::plus<>()), Ref({2, 1}, {2, 3}),
                                 [](double v, double m) { return (v - 1) * m; }),
                       row, [](double v, double r) { return v + 2 * r - 3 * r; });
  EXPECT_TRUE(kref::close(x, want, kref::kExact));
  EXPECT_EQ(x.dtype(), dt);
}

TEST_P(InPlace, CompoundOperatorsMatchMethods) {
  const kiln::ScalarType dt = GetParam();
  Tensor x = kref::make(Ref({3}, {1, 2, 3}), dt);
  x += 2;
  x *= kref::make(Ref({3}, {1, 2, 3}), dt);
  x -= kref::make(Ref({}, {1}), dt);
  x *= 2;
  x -= 1;
  x += x;
  // ((v + 2) * v - 1) * 2 - 1, doubled
  EXPECT_TRUE(kref::equals(x, {3}, {2 * (2 * 2 - 1), 2 * (2 * 7 - 1), 2 * (2 * 14 - 1)}));
}

TEST_P(InPlace, ZeroFillClampRelu) {
  const kiln::ScalarType dt = GetParam();
  Tensor x = kref::make(Ref({4}, {-3, -1, 2, 5}), dt);
  Tensor y = x.clone();
  x.clamp_(-2, 3);
  EXPECT_TRUE(kref::equals(x, {4}, {-2, -1, 2, 3}));
  x.clamp_(0);
  EXPECT_TRUE(kref::equals(x, {4}, {0, 0, 2, 3}));
  y.relu_();
  EXPECT_TRUE(kref::equals(y, {4}, {0, 0, 2, 5}));
  y.fill_(4);
  EXPECT_TRUE(kref::equals(y, {4}, {4, 4, 4, 4}));
  y.zero_();
  EXPECT_TRUE(kref::equals(y, {4}, {0, 0, 0, 0}));
}

TEST_P(InPlace, InPlaceOnNonContiguousViews) {
  const kiln::ScalarType dt = GetParam();
  Tensor base = kref::make(Ref::iota({3, 4}), dt);
  base.t().slice(0, 0, 4, 3).mul_(-1);  // columns 0 and 3
  base.slice(0, 1, 3).add_(kref::make(Ref({4}, {1, 1, 1, 1}), dt));
  EXPECT_TRUE(kref::equals(base, {3, 4}, {0, 1, 2, -3, -3, 6, 7, -6, -7, 10, 11, -10}));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, InPlace, ::testing::Values(kiln::kFloat32, kiln::kFloat64, kiln::kInt32, kiln::kInt64),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

TEST(InPlaceFloat, DivByTensorAndNumber) {
  Tensor x = kiln::tensor({1.0, 4.0, 9.0}, kiln::kFloat64);
  x.div_(kiln::tensor({2.0, 4.0, 3.0}, kiln::kFloat64));
  x /= 2;
  EXPECT_TRUE(kref::equals(x, {3}, {0.25, 0.5, 1.5}));
}

TEST(InPlaceReturn, ReturnsSelfForChaining) {
  Tensor x = kiln::zeros({2});
  Tensor& r = x.add_(1);
  EXPECT_EQ(&r, &x);
  x.add_(1).mul_(3).sub_(1);
  EXPECT_TRUE(kref::equals(x, {2}, {5, 5}));
}

TEST(InPlaceConvert, FloatResultIntoDoubleAndIntResultIntoFloat) {
  Tensor d = kiln::zeros({2}, kiln::kFloat64);
  d.add_(kiln::tensor({0.1f, 0.2f}));  // Float operand into a Double tensor
  EXPECT_TRUE(kref::close(d, Ref({2}, {double(0.1f), double(0.2f)}), kref::kExact));
  Tensor f = kiln::zeros({2});
  f.add_(kiln::tensor({3, 4}, kiln::kInt64));  // Long into Float
  EXPECT_TRUE(kref::equals(f, {2}, {3, 4}));
  Tensor f2 = kiln::ones({2});
  f2.add_(kiln::scalar_tensor(1e-10, kiln::kFloat64));  // rounded to float32
  EXPECT_EQ(f2.to_vector<double>(), (std::vector<double>{1, 1}));
  Tensor i = kiln::zeros({2}, kiln::kInt32);
  i.add_(kiln::tensor({5, 6}, kiln::kInt64));  // Long into Int
  EXPECT_TRUE(kref::equals(i, {2}, {5, 6}));
  Tensor l = kiln::ones({2}, kiln::kInt64);
  l.mul_(kiln::tensor({true, false}));
  EXPECT_TRUE(kref::equals(l, {2}, {1, 0}));
}

TEST(InPlaceConvert, CopyBroadcastsAndConverts) {
  Tensor i = kiln::zeros({2, 3}, kiln::kInt32);
  i.copy_(kiln::tensor({1.7, -2.2, 3.9}, kiln::kFloat64));
  EXPECT_TRUE(kref::equals(i, {2, 3}, {1, -2, 3, 1, -2, 3}));
  Tensor b = kiln::zeros({3}, kiln::kBool);
  b.copy_(kiln::tensor({0.0f, 2.0f, -0.5f}));
  EXPECT_TRUE(kref::equals(b, {3}, {0, 1, 1}));
  Tensor f = kiln::zeros({2, 2});
  f.t().copy_(kiln::tensor({{1, 2}, {3, 4}}));  // into a transposed view
  EXPECT_TRUE(kref::equals(f, {2, 2}, {1, 3, 2, 4}));
  f.copy_(kiln::scalar_tensor(7.0, kiln::kFloat64));
  EXPECT_TRUE(kref::equals(f, {2, 2}, {7, 7, 7, 7}));
}

TEST(InPlaceDtype, ResultThatSelfCannotHoldIsADtypeError) {
  Tensor i = kiln::tensor({1, 2}, kiln::kInt32);
  EXPECT_THROW(i.add_(1.5), kiln::DtypeError);
  EXPECT_THROW(i.mul_(kiln::tensor({0.5f, 0.5f})), kiln::DtypeError);
  EXPECT_THROW(i.div_(2), kiln::DtypeError);  // true division gives Float
  EXPECT_THROW(i /= i, kiln::DtypeError);
  Tensor l = kiln::tensor({1, 2});
  EXPECT_THROW(l.sub_(kiln::scalar_tensor(0.5, kiln::kFloat64)), kiln::DtypeError);
  Tensor b = kiln::tensor({true, false});
  EXPECT_THROW(b.add_(1), kiln::DtypeError);
  EXPECT_THROW(b.add_(kiln::tensor({1, 1}, kiln::kInt32)), kiln::DtypeError);
  // nothing was written
  EXPECT_TRUE(kref::equals(i, {2}, {1, 2}));
  EXPECT_TRUE(kref::equals(b, {2}, {1, 0}));
}

TEST(InPlaceDtype, ClampOfIntWithFractionalBoundIsADtypeError) {
  // LibTorch: clamp's result type is Float, which cannot be cast back into Int.
  Tensor i = kiln::tensor({1, 2}, kiln::kInt32);
  EXPECT_THROW(i.clamp_(0.5), kiln::DtypeError);
}

TEST(InPlaceEmpty, WriteIntoAnEmptyExpandedViewIsANoOp) {
  // No two elements of a tensor with no elements share memory: LibTorch allows the write.
  Tensor e = kiln::zeros({0}).expand({3, 0});
  EXPECT_NO_THROW(e.sub_(1));
  EXPECT_NO_THROW(e.fill_(2));
  EXPECT_EQ(e.numel(), 0);
}

}  // namespace

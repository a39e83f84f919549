// cumsum and cumprod against running sums and products over plain loops:
// every dtype (integral and bool inputs give Long, as LibTorch), every dim
// of several shapes, negative dims, zeros, non-contiguous inputs, the dtype
// argument, zero-dim and empty inputs, the gradients and the errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"
#include "tests/errors/expect_error.h"

namespace {

using kiln::Tensor;
using kref::Ref;
using kref::Shape;

class Cumulative : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(Cumulative, MatchesRunningSumsAndProductsAlongEveryDim) {
  const kiln::ScalarType dt = GetParam();
  const kiln::ScalarType sum_dt = kiln::is_floating_point(dt) ? dt : kiln::kInt64;
  for (const Shape& shape : {Shape{7}, Shape{3, 4}, Shape{2, 3, 5}}) {
    const Ref a = kref::cast(kref::random_steps(shape, 5, -6, 6, 0.5), dt);
    const Tensor x = kref::make(a, dt);
    const auto nd = static_cast<std::int64_t>(shape.size());
    for (std::int64_t dim = -nd; dim < nd; ++dim) {
      SCOPED_TRACE(kref::str(shape) + " dim " + std::to_string(dim));
      const Ref want = kref::cast(kref::along(a, dim, kref::cumsum_of), sum_dt);
      const Tensor y = x.cumsum(dim);
      EXPECT_EQ(y.dtype(), sum_dt);
      EXPECT_TRUE(kref::close(kref::of(y), want, kref::kExact));
      // The same values read through a transposed (non-contiguous) view.
      const Tensor xt = x.transpose(0, nd - 1).contiguous().transpose(0, nd - 1);
      EXPECT_EQ(xt.is_contiguous(), nd == 1);
      EXPECT_TRUE(kref::close(kref::of(kiln::cumsum(xt, dim)), want, kref::kExact));
      // Products of small integers and zeros stay exact in every dtype.
      const Ref small = kref::cast(kref::random_steps(shape, 6, -2, 2, 1), dt);
      const Ref want_products = kref::cast(kref::along(small, dim, kref::cumprod_of), sum_dt);
      const Tensor s = kref::make(small, dt);
      EXPECT_EQ(s.cumprod(dim).dtype(), sum_dt);
      EXPECT_TRUE(kref::close(kref::of(s.cumprod(dim)), want_products, kref::kExact));
      EXPECT_TRUE(kref::close(kref::of(kiln::cumprod(s.transpose(0, nd - 1).contiguous().transpose(0, nd - 1), dim)),
                              want_products, kref::kExact));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryDtype, Cumulative,
                         ::testing::Values(kiln::kBool, kiln::kInt32, kiln::kInt64, kiln::kFloat32, kiln::kFloat64),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

TEST(CumsumDtype, TheInputIsCastFirst) {
  const Tensor i = kiln::tensor({3, -1, 4, 1}, kiln::kInt32);
  const Tensor f = i.cumsum(0, kiln::kFloat64);
  EXPECT_EQ(f.dtype(), kiln::kFloat64);
  EXPECT_EQ(f.to_vector<double>(), (std::vector<double>{3, 2, 6, 7}));
  const Tensor k = i.cumsum(0, kiln::kInt32);
  EXPECT_EQ(k.dtype(), kiln::kInt32);
  EXPECT_EQ(k.to_vector<std::int32_t>(), (std::vector<std::int32_t>{3, 2, 6, 7}));
  // 2.5 and 1.75 become 2 and 1 before the sum (LibTorch casts, then sums).
  EXPECT_EQ(kiln::tensor({2.5, 1.75}).cumsum(0, kiln::kInt64).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{2, 3}));
  // float32 sums accumulate in double, as LibTorch's CPU kernel.
  // (Each 3e-8 alone is below half an ulp of 1 in float32: a float
  // accumulator would stay at 1.)
  const std::vector<float> sums = kiln::tensor({1.0f, 3e-8f, 3e-8f, 3e-8f, 3e-8f}).cumsum(0).to_vector<float>();
  EXPECT_EQ(sums[4], static_cast<float>(1.0 + 4 * static_cast<double>(3e-8f)));
  EXPECT_NE(sums[4], 1.0f);
}

TEST(CumsumShapes, ZeroDimAndEmptyInputs) {
  const Tensor s = kiln::tensor({2.5}).reshape({});
  for (std::int64_t dim : {0, -1}) {
    const Tensor y = s.cumsum(dim);
    EXPECT_EQ(y.dim(), 0);
    EXPECT_EQ(y.item<double>(), 2.5);
  }
  const Tensor b = kiln::tensor({true}).reshape({}).cumsum(0);
  EXPECT_EQ(b.dtype(), kiln::kInt64);
  EXPECT_EQ(b.dim(), 0);
  EXPECT_EQ(b.item<std::int64_t>(), 1);
  const Tensor e = kiln::zeros({0, 3}).cumsum(0);
  EXPECT_EQ(e.sizes().vec(), (std::vector<std::int64_t>{0, 3}));
  EXPECT_EQ(kiln::zeros({2, 0}, kiln::kInt32).cumsum(1).sizes().vec(), (std::vector<std::int64_t>{2, 0}));
}

TEST(CumsumGrad, EachInputGetsTheSumOfTheGradientsAfterIt) {
  const Tensor x = kiln::tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}).requires_grad_();
  const Tensor y = x.cumsum(1);
  EXPECT_EQ(y.grad_fn()->name(), "CumsumBackward0");
  (y * kiln::tensor({1.0, 10.0, 100.0})).sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{111, 110, 100, 111, 110, 100}));
}

TEST(CumprodGrad, ExactWhereInputsAreZero) {
  // Each x_k gets the sum over j >= k of g_j times x_0..x_j without x_k.
  const std::vector<double> v = {2.0, 0.0, 3.0, 0.0, 5.0};
  const Tensor x = kiln::tensor(v).requires_grad_();
  const Tensor y = x.cumprod(0);
  EXPECT_EQ(y.grad_fn()->name(), "CumprodBackward0");
  const std::vector<double> g = {1.0, 10.0, 100.0, 1000.0, 10000.0};
  (y * kiln::tensor(g)).sum().backward();
  std::vector<double> want(v.size(), 0.0);
  for (std::size_t k = 0; k < v.size(); ++k)
    for (std::size_t j = k; j < v.size(); ++j) {
      double p = g[j];
      for (std::size_t i = 0; i <= j; ++i)
        if (i != k) p *= v[i];
      want[k] += p;
    }
  EXPECT_EQ(want, (std::vector<double>{1, 20 + 600, 0, 0, 0}));
  EXPECT_EQ(x.grad().to_vector<double>(), want);
}

TEST(CumsumErrors, ABadDimIsAnIndexErrorNamingTheShape) {
  const Tensor x = kiln::ones({2, 3});
  for (std::int64_t dim : {2, -3})
    EXPECT_TRUE(kerr::throws<kiln::IndexError>([&] { (void)x.cumsum(dim); },
                                               {"[cumsum] dim " + std::to_string(dim), "[2, 3]"}));
  EXPECT_TRUE(kerr::throws<kiln::IndexError>([] { (void)kiln::ones({}).cumsum(1); }, {"[cumsum]"}));
  EXPECT_TRUE(kerr::throws<kiln::IndexError>([&] { (void)kiln::cumprod(x, 3); },
                                             {"[cumprod] dim 3 is out of range for a tensor of shape [2, 3]"}));
}

}  // namespace

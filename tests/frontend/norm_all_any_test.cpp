// norm, all, any and the whole-tensor var/std free functions against plain
// loops; bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;

const std::vector<double> kX = {3, -4, 0, 0, 0, 0, 1, -2, 2};  // [3, 3]: a row of zeros

std::vector<double> values(const Tensor& t) { return t.to(kiln::kFloat64).to_vector<double>(); }

TEST(Norm, EachPAgainstALoop) {
  Tensor x = kiln::tensor(kX, kiln::kFloat64).reshape({3, 3});
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_DOUBLE_EQ(x.norm().item<double>(), std::sqrt(9 + 16 + 1 + 4 + 4));
  EXPECT_DOUBLE_EQ(kiln::norm(x, 1).item<double>(), 12);
  EXPECT_DOUBLE_EQ(x.norm(inf).item<double>(), 4);
  EXPECT_DOUBLE_EQ(x.norm(-inf).item<double>(), 0);
  EXPECT_DOUBLE_EQ(x.norm(0).item<double>(), 5);
  EXPECT_NEAR(x.norm(3).item<double>(), std::cbrt(27 + 64 + 1 + 8 + 8), 1e-12);
  EXPECT_EQ(values(x.norm(2, 1)), (std::vector<double>{5, 0, 3}));
  Tensor kept = kiln::norm(x, 1, {0}, true);
  EXPECT_EQ(kept.sizes().vec(), (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(values(kept), (std::vector<double>{4, 6, 2}));
  // A transposed (non-contiguous) input reduces the same elements.
  EXPECT_EQ(values(x.t().norm(2, 0)), (std::vector<double>{5, 0, 3}));
}

TEST(Norm, GradientIsZeroWhereTheNormIsZero) {
  Tensor x = kiln::tensor(kX, kiln::TensorOptions(kiln::kFloat64).requires_grad(true));
  x.reshape({3, 3}).norm(2, 1).sum().backward();
  std::vector<double> g = values(x.grad());
  const std::vector<double> want = {0.6, -0.8, 0, 0, 0, 0, 1.0 / 3, -2.0 / 3, 2.0 / 3};
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], want[i], 1e-12) << i;
}

TEST(Norm, IntegerInputIsADtypeError) {
  EXPECT_THROW(kiln::arange(4).norm(), kiln::DtypeError);
}

TEST(AllAny, WholeTensorAndAlongADim) {
  Tensor x = kiln::tensor(kX, kiln::kFloat64).reshape({3, 3});
  EXPECT_FALSE(x.all().item<bool>());
  EXPECT_TRUE(x.any().item<bool>());
  EXPECT_EQ(x.all().dtype(), kiln::kBool);
  EXPECT_EQ(values(x.any(1)), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(values(x.all(0)), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(kiln::all(kiln::ones({2, 0})).item<bool>(), true);  // of nothing: true, as LibTorch
  EXPECT_EQ(kiln::any(kiln::ones({2, 0})).item<bool>(), false);
  Tensor mask = kiln::tensor({1, 0, 1}).to(kiln::kBool);
  EXPECT_FALSE(mask.all().item<bool>());
  EXPECT_TRUE(mask.any().item<bool>());
  EXPECT_EQ(x.any(-1, true).sizes().vec(), (std::vector<std::int64_t>{3, 1}));
}

TEST(VarStd, WholeTensorFreeFunctions) {
  Tensor x = kiln::tensor({1.0, 2.0, 4.0, 7.0}, kiln::kFloat64);
  const double ss = 2.5 * 2.5 + 1.5 * 1.5 + 0.5 * 0.5 + 3.5 * 3.5;
  EXPECT_DOUBLE_EQ(kiln::var(x).item<double>(), ss / 3);
  EXPECT_DOUBLE_EQ(kiln::var(x, false).item<double>(), ss / 4);
  EXPECT_DOUBLE_EQ(kiln::std(x).item<double>(), std::sqrt(ss / 3));
  EXPECT_DOUBLE_EQ(kiln::prod(x).item<double>(), 56);
  EXPECT_EQ(kiln::var(x.reshape({2, 2}), {1}).sizes().vec(), (std::vector<std::int64_t>{2}));
}

}  // namespace

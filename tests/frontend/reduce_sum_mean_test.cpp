// sum, mean, prod, var, std: whole-tensor and over dims (single, several,
// negative), keepdim, every dtype each supports, non-contiguous and
// zero-size inputs.
// Inputs are multiples of 0.5 in [-3, 3], so float32 sums are exact and the
// float32 tolerance (rel 1e-5, abs 1e-6 against float64) only covers the one
// rounding of mean/var/std; integer results exact.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;
using kref::Ref;
using kref::Shape;

Ref halves(const Shape& s, unsigned seed, bool integral) {
  return integral ? kref::random_steps(s, seed, -3, 3, 1.0) : kref::random_steps(s, seed, -6, 6, 0.5);
}

const std::vector<std::vector<std::int64_t>> kDimLists = {{0}, {1}, {2}, {-1}, {0, 2}, {1, -1}, {2, 0}, {0, 1, 2}};

class SumMean : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(SumMean, SumOverEveryDimListWithAndWithoutKeepdim) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(halves({2, 3, 4}, 1, !kiln::is_floating_point(dt)), dt);
  Tensor x = kref::make(a, dt);
  const kiln::ScalarType acc = kiln::is_floating_point(dt) ? dt : kiln::kInt64;
  for (const auto& dims : kDimLists) {
    for (bool keep : {false, true}) {
      SCOPED_TRACE(kref::str(dims) + (keep ? " keepdim" : ""));
      Tensor s = x.sum(dims, keep);
      EXPECT_EQ(s.dtype(), acc);
      EXPECT_TRUE(kref::close(s, kref::reduce(a, dims, keep, kref::sum_of), kref::tol_for(acc)));
      EXPECT_TRUE(kref::close(kiln::sum(x, dims, keep), kref::reduce(a, dims, keep, kref::sum_of), kref::tol_for(acc)));
    }
  }
  Tensor all = x.sum();
  EXPECT_EQ(all.dim(), 0);
  EXPECT_TRUE(kref::close(all, kref::reduce(a, {}, false, kref::sum_of), kref::tol_for(acc)));
  EXPECT_TRUE(kref::close(kiln::sum(x), kref::reduce(a, {}, false, kref::sum_of), kref::tol_for(acc)));
}

TEST_P(SumMean, SumOfNonContiguousViews) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(halves({4, 6}, 2, !kiln::is_floating_point(dt)), dt);
  Tensor x = kref::make(a, dt);
  const kiln::ScalarType acc = kiln::is_floating_point(dt) ? dt : kiln::kInt64;
  kref::Tol tol = kref::tol_for(acc);
  EXPECT_TRUE(kref::close(x.t().sum({1}), kref::reduce(kref::transpose(a, 0, 1), {1}, false, kref::sum_of), tol));
  Ref stepped = kref::slice(kref::slice(a, 0, 1, 4, 2), 1, 0, 6, 3);
  EXPECT_TRUE(kref::close(x.slice(0, 1, 4, 2).slice(1, 0, 6, 3).sum({0}), kref::reduce(stepped, {0}, false, kref::sum_of),
                          tol));
  Ref col = kref::slice(a, 1, 2, 3);  // [4, 1]
  Tensor ex = x.narrow(1, 2, 1).expand({4, 5});
  EXPECT_TRUE(kref::close(ex.sum({1}, true), kref::map(col, [](double v) { return 5 * v; }), tol));
}

// Over the rows of a wide tensor the outputs are folded side by side, 16 at
// a time, then the rest one by one: 83 columns take both, and blocks of 64.
TEST_P(SumMean, SumOverTheRowsOfAWideTensor) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(halves({37, 83}, 6, !kiln::is_floating_point(dt)), dt);
  Tensor x = kref::make(a, dt);
  const kiln::ScalarType acc = kiln::is_floating_point(dt) ? dt : kiln::kInt64;
  EXPECT_TRUE(kref::close(x.sum({0}), kref::reduce(a, {0}, false, kref::sum_of), kref::tol_for(acc)));
  EXPECT_TRUE(kref::close(x.sum({0}, true), kref::reduce(a, {0}, true, kref::sum_of), kref::tol_for(acc)));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SumMean,
                         ::testing::Values(kiln::kFloat32, kiln::kFloat64, kiln::kInt32, kiln::kInt64, kiln::kBool),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

class FloatReduce : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(FloatReduce, MeanOverEveryDimList) {
  const kiln::ScalarType dt = GetParam();
  Ref a = halves({2, 3, 4}, 3, false);
  Tensor x = kref::make(a, dt);
  for (const auto& dims : kDimLists) {
    for (bool keep : {false, true}) {
      SCOPED_TRACE(kref::str(dims) + (keep ? " keepdim" : ""));
      Tensor m = x.mean(dims, keep);
      EXPECT_EQ(m.dtype(), dt);
      EXPECT_TRUE(kref::close(m, kref::reduce(a, dims, keep, kref::mean_of), kref::tol_for(dt)));
      EXPECT_TRUE(kref::close(kiln::mean(x, dims, keep), kref::reduce(a, dims, keep, kref::mean_of), kref::tol_for(dt)));
    }
  }
  EXPECT_TRUE(kref::close(x.mean(), kref::reduce(a, {}, false, kref::mean_of), kref::tol_for(dt)));
  EXPECT_TRUE(kref::close(kiln::mean(x.transpose(0, 2)), kref::reduce(a, {}, false, kref::mean_of), kref::tol_for(dt)));
}

TEST_P(FloatReduce, VarAndStdBiasedAndUnbiased) {
  const kiln::ScalarType dt = GetParam();
  Ref a = halves({3, 4, 5}, 4, false);
  Tensor x = kref::make(a, dt);
  for (bool unbiased : {true, false}) {
    auto var = [unbiased](const std::vector<double>& g) { return kref::var_of(g, unbiased); };
    auto sd = [unbiased](const std::vector<double>& g) { return std::sqrt(kref::var_of(g, unbiased)); };
    SCOPED_TRACE(unbiased ? "unbiased" : "biased");
    EXPECT_TRUE(kref::close(x.var(unbiased), kref::reduce(a, {}, false, var), kref::tol_for(dt)));
    EXPECT_TRUE(kref::close(x.std(unbiased), kref::reduce(a, {}, false, sd), kref::tol_for(dt)));
    for (const auto& dims : kDimLists) {
      for (bool keep : {false, true}) {
        SCOPED_TRACE(kref::str(dims) + (keep ? " keepdim" : ""));
        EXPECT_TRUE(kref::close(x.var(dims, unbiased, keep), kref::reduce(a, dims, keep, var), kref::tol_for(dt)));
        EXPECT_TRUE(kref::close(kiln::std(x, dims, unbiased, keep), kref::reduce(a, dims, keep, sd), kref::tol_for(dt)));
      }
    }
  }
  // LibTorch's default is unbiased.
  auto unbiased_var = [](const std::vector<double>& g) { return kref::var_of(g, true); };
  const std::vector<std::int64_t> dim1{1};
  EXPECT_TRUE(kref::close(x.var(dim1), kref::reduce(a, {1}, false, unbiased_var), kref::tol_for(dt)));
  Ref m = halves({4, 5}, 6, false);
  EXPECT_TRUE(kref::close(kiln::var(kref::make(m, dt).t(), {0}),
                          kref::reduce(kref::transpose(m, 0, 1), {0}, false, unbiased_var), kref::tol_for(dt)));
}

TEST_P(FloatReduce, ProdWholeAndOverOneDim) {
  const kiln::ScalarType dt = GetParam();
  Ref a = halves({2, 3, 4}, 5, false);
  Tensor x = kref::make(a, dt);
  EXPECT_TRUE(kref::close(x.prod(), kref::reduce(a, {}, false, kref::prod_of), kref::tol_for(dt)));
  EXPECT_TRUE(kref::close(kiln::prod(x), kref::reduce(a, {}, false, kref::prod_of), kref::tol_for(dt)));
  for (std::int64_t d : {0, 1, 2, -1}) {
    for (bool keep : {false, true}) {
      SCOPED_TRACE("dim " + std::to_string(d) + (keep ? " keepdim" : ""));
      EXPECT_TRUE(kref::close(x.prod(d, keep), kref::reduce(a, {d}, keep, kref::prod_of), kref::tol_for(dt)));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, FloatReduce, ::testing::Values(kiln::kFloat32, kiln::kFloat64),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

TEST(IntReduce, ProdOfIntegersIsLongAndExact) {
  Tensor x = kiln::tensor({{1, 2, 3}, {4, 5, 6}}, kiln::kInt32);
  Tensor p = x.prod(1);
  EXPECT_EQ(p.dtype(), kiln::kInt64);
  EXPECT_TRUE(kref::equals(p, {2}, {6, 120}));
  EXPECT_EQ(x.prod().item<std::int64_t>(), 720);
  EXPECT_EQ(kiln::tensor({true, true, false}).prod().dtype(), kiln::kInt64);
  EXPECT_EQ(kiln::tensor({true, true, false}).prod().item<std::int64_t>(), 0);
}

TEST(IntReduce, SumOfBoolsCountsTrues) {
  Tensor b = kiln::arange(10) > 3;
  EXPECT_EQ(b.sum().item<std::int64_t>(), 6);
}

TEST(IntReduce, SumOfIntDoesNotOverflowInt32) {
  Tensor x = kiln::full({4}, 2000000000, kiln::kInt32);
  EXPECT_EQ(x.sum().item<std::int64_t>(), 8000000000LL);
}

TEST(EmptyReduce, SumOfEmptyIsZeroAndProdIsOne) {
  Tensor e = kiln::zeros({0, 3});
  EXPECT_EQ(e.sum().item<float>(), 0.0f);
  EXPECT_TRUE(kref::equals(e.sum({0}), {3}, {0, 0, 0}));
  EXPECT_EQ(e.sum({1}).sizes().vec(), (std::vector<std::int64_t>{0}));
  EXPECT_TRUE(kref::equals(e.sum({0}, true), {1, 3}, {0, 0, 0}));
  EXPECT_EQ(e.prod().item<float>(), 1.0f);
  EXPECT_TRUE(kref::equals(e.prod(0), {3}, {1, 1, 1}));
  EXPECT_EQ(kiln::zeros({0}, kiln::kInt64).sum().item<std::int64_t>(), 0);
}

TEST(EmptyReduce, MeanOfEmptyIsNaN) {
  EXPECT_TRUE(std::isnan(kiln::zeros({0}).mean().item<float>()));
  Ref want({3}, {NAN, NAN, NAN});
  EXPECT_TRUE(kref::close(kiln::zeros({0, 3}).mean({0}), want, kref::kExact));
}

TEST(ZeroDimReduce, ReducingAZeroDimTensorIsTheIdentity) {
  Tensor s = kiln::scalar_tensor(2.5, kiln::kFloat64);
  EXPECT_EQ(s.sum().item<double>(), 2.5);
  EXPECT_EQ(s.sum({0}).item<double>(), 2.5);
  EXPECT_EQ(s.mean({-1}).item<double>(), 2.5);
  EXPECT_EQ(s.sum({0}).dim(), 0);
}

}  // namespace

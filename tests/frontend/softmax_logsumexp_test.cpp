// softmax, log_softmax (method, function, nn::functional) and logsumexp
// against kref over every dim, non-contiguous inputs, large inputs (must not
// overflow) and -inf entries.
// Tolerances: float32 rel 1e-5 / abs 1e-6 against float64; float64 1e-12.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;
using kref::Ref;

Ref uniform(const kref::Shape& s, unsigned seed, double lo, double hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Ref r = Ref::filled(s, 0);
  for (double& x : r.v) x = u(gen);
  return r;
}

class Softmax : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(Softmax, SoftmaxAndLogSoftmaxOverEveryDim) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(uniform({3, 4, 5}, 1, -3, 3), dt);
  Tensor x = kref::make(a, dt);
  for (std::int64_t d : {0, 1, 2, -1, -2}) {
    SCOPED_TRACE("dim " + std::to_string(d));
    Tensor s = x.softmax(d);
    EXPECT_EQ(s.dtype(), dt);
    EXPECT_TRUE(kref::close(s, kref::softmax(a, d), kref::tol_for(dt)));
    EXPECT_TRUE(kref::close(kiln::softmax(x, d), kref::softmax(a, d), kref::tol_for(dt)));
    EXPECT_TRUE(kref::close(kiln::nn::functional::softmax(x, d), kref::softmax(a, d), kref::tol_for(dt)));
    EXPECT_TRUE(kref::close(x.log_softmax(d), kref::softmax(a, d, true), kref::tol_for(dt)));
    EXPECT_TRUE(kref::close(kiln::log_softmax(x, d), kref::softmax(a, d, true), kref::tol_for(dt)));
    EXPECT_TRUE(kref::close(kiln::nn::functional::log_softmax(x, d), kref::softmax(a, d, true), kref::tol_for(dt)));
  }
}

TEST_P(Softmax, SoftmaxOfTransposedAndSlicedViews) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(uniform({6, 4}, 2, -3, 3), dt);
  Tensor x = kref::make(a, dt);
  EXPECT_TRUE(kref::close(x.t().softmax(1), kref::softmax(kref::transpose(a, 0, 1), 1), kref::tol_for(dt)));
  EXPECT_TRUE(kref::close(x.slice(0, 0, 6, 2).log_softmax(0), kref::softmax(kref::slice(a, 0, 0, 6, 2), 0, true),
                          kref::tol_for(dt)));
}

TEST_P(Softmax, LargeInputsDoNotOverflow) {
  const kiln::ScalarType dt = GetParam();
  Ref a({2, 3}, {1000, 1001, 1002, -1000, -1001, -1002});
  Tensor x = kref::make(a, dt);
  EXPECT_TRUE(kref::close(x.softmax(1), kref::softmax(a, 1), kref::tol_for(dt)));
  EXPECT_TRUE(kref::close(x.log_softmax(1), kref::softmax(a, 1, true), kref::tol_for(dt)));
  EXPECT_TRUE(kref::close(x.logsumexp({1}), kref::reduce(a, {1}, false, kref::logsumexp_of), kref::tol_for(dt)));
}

TEST_P(Softmax, NegativeInfinityEntriesGetZeroProbability) {
  const kiln::ScalarType dt = GetParam();
  const double inf = std::numeric_limits<double>::infinity();
  Ref a({2, 3}, {0, -inf, 0, 1, -inf, -inf});
  Tensor s = kref::make(a, dt).softmax(1);
  EXPECT_TRUE(kref::close(s, Ref({2, 3}, {0.5, 0, 0.5, 1, 0, 0}), kref::tol_for(dt)));
}

TEST_P(Softmax, LogsumexpOverDimListsWithKeepdim) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(uniform({3, 4, 5}, 3, -3, 3), dt);
  Tensor x = kref::make(a, dt);
  const std::vector<std::vector<std::int64_t>> lists = {{0}, {1}, {-1}, {0, 2}, {0, 1, 2}};
  for (const auto& dims : lists) {
    for (bool keep : {false, true}) {
      SCOPED_TRACE(kref::str(dims) + (keep ? " keepdim" : ""));
      Tensor l = x.logsumexp(dims, keep);
      EXPECT_EQ(l.dtype(), dt);
      EXPECT_TRUE(kref::close(l, kref::reduce(a, dims, keep, kref::logsumexp_of), kref::tol_for(dt)));
      EXPECT_TRUE(kref::close(kiln::logsumexp(x, dims, keep), kref::reduce(a, dims, keep, kref::logsumexp_of),
                              kref::tol_for(dt)));
    }
  }
  EXPECT_TRUE(kref::close(x.transpose(0, 2).logsumexp({0}),
                          kref::reduce(kref::transpose(a, 0, 2), {0}, false, kref::logsumexp_of), kref::tol_for(dt)));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Softmax, ::testing::Values(kiln::kFloat32, kiln::kFloat64),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

TEST(SoftmaxValues, HandComputedRow) {
  Tensor s = kiln::tensor({0.0, std::log(3.0)}, kiln::kFloat64).softmax(0);
  EXPECT_TRUE(kref::close(s, Ref({2}, {0.25, 0.75}), kref::kDoubleTol));
  EXPECT_TRUE(kref::close(kiln::tensor({1.0, 1.0}, kiln::kFloat64).logsumexp({0}), Ref({}, {1 + std::log(2.0)}),
                          kref::kDoubleTol));
}

TEST(SoftmaxValues, ZeroSizeBatchGivesZeroSizeResult) {
  Tensor s = kiln::zeros({0, 4}).softmax(1);
  EXPECT_EQ(s.sizes().vec(), (std::vector<std::int64_t>{0, 4}));
}

TEST(SoftmaxValues, EmptySoftmaxDim) {
  // LibTorch: softmax over a dim of size 0 is an empty result; logsumexp of nothing is log(0) = -inf.
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = kiln::zeros({3, 0});
  EXPECT_EQ(x.softmax(1).sizes().vec(), (std::vector<std::int64_t>{3, 0}));
  EXPECT_EQ(x.log_softmax(-1).sizes().vec(), (std::vector<std::int64_t>{3, 0}));
  EXPECT_TRUE(kref::close(x.logsumexp({1}), Ref({3}, {-inf, -inf, -inf}), kref::kExact));
}

}  // namespace

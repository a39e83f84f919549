// Sizes large enough for kernels to split work across threads and tiles:
// results must not depend on the split. Checked against closed forms or
// exact integer-valued data (exact comparisons unless stated).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;

TEST(Large, LongSumOfArangeIsExact) {
  const std::int64_t n = 1 << 22;
  EXPECT_EQ(kiln::arange(n).sum().item<std::int64_t>(), n * (n - 1) / 2);
}

TEST(Large, FloatSumOfOnesIsExact) {
  // 2^22 ones: every partial sum is an integer below 2^24, so any summation order is exact.
  EXPECT_EQ(kiln::ones({1 << 22}).sum().item<float>(), static_cast<float>(1 << 22));
}

TEST(Large, TransposedElementwiseOnAMillionElements) {
  const std::int64_t n = 1024;
  Tensor x = kiln::arange(n * n, kiln::kFloat32).reshape({n, n});
  Tensor y = x + x.t();  // y[i][j] = (i*n + j) + (j*n + i)
  std::vector<float> v = y.to_vector<float>();
  int bad = 0;
  for (std::int64_t i = 0; i < n; i += 7)
    for (std::int64_t j = 0; j < n; j += 5)
      bad += v[i * n + j] != static_cast<float>((i * n + j) + (j * n + i));
  EXPECT_EQ(bad, 0);
}

TEST(Large, RowAndColumnReductionsOfALargeMatrix) {
  const std::int64_t r = 512, c = 2048;
  Tensor x = kiln::arange(r * c, kiln::kFloat64).reshape({r, c});
  std::vector<double> rows = x.sum({1}).to_vector<double>();
  std::vector<double> cols = x.sum({0}).to_vector<double>();
  // row i: sum_j (i*c + j) = i*c*c + c(c-1)/2; column j: sum_i (i*c + j) = c*r(r-1)/2 + r*j
  for (std::int64_t i = 0; i < r; i += 31) EXPECT_EQ(rows[i], double(i * c * c + c * (c - 1) / 2)) << i;
  for (std::int64_t j = 0; j < c; j += 97) EXPECT_EQ(cols[j], double(c * r * (r - 1) / 2 + r * j)) << j;
  Tensor am = x.t().amax({1});  // per column of x: the last row
  EXPECT_EQ(am.select(0, 100).item<double>(), double((r - 1) * c + 100));
}

TEST(Large, ArgmaxFindsAUniqueMaximumAnywhere) {
  const std::int64_t n = 3'000'001;
  for (std::int64_t where : {std::int64_t{0}, std::int64_t{1'234'567}, n - 1}) {
    Tensor x = kiln::zeros({n});
    x.narrow(0, where, 1).fill_(1);
    EXPECT_EQ(x.argmax().item<std::int64_t>(), where);
    EXPECT_EQ((-x).argmin().item<std::int64_t>(), where);
  }
}

TEST(Large, SoftmaxRowsOfALargeBatchSumToOne) {
  kiln::manual_seed(3);
  Tensor s = kiln::randn({4096, 257}).softmax(1).sum({1});
  std::vector<float> v = s.to_vector<float>();
  float worst = 0;
  for (float x : v) worst = std::max(worst, std::abs(x - 1.0f));
  EXPECT_LT(worst, 1e-5f);  // 257 terms in float32
}

// Plain triple loop over row-major data.
kref::Ref plain_matmul(const Tensor& a, const Tensor& b) {
  const std::int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>(), out(m * n, 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t j = 0; j < n; ++j) out[i * n + j] += av[i * k + p] * bv[p * n + j];
  return kref::Ref({m, n}, out);
}

TEST(Large, MatmulOfIntegerValuedFloatsIsExact) {
  // 200 x 300 @ 300 x 150, entries in {-2..2}: partial sums stay below 2^24.
  kiln::manual_seed(4);
  Tensor a = kiln::randint(-2, 3, {200, 300}).to(kiln::kFloat32);
  Tensor b = kiln::randint(-2, 3, {300, 150}).to(kiln::kFloat32);
  kref::Ref want = plain_matmul(a, b);
  EXPECT_TRUE(kref::close(a.matmul(b), want, kref::kExact));
  EXPECT_TRUE(kref::close(a.t().contiguous().t().matmul(b), want, kref::kExact));
  EXPECT_TRUE(kref::close(a.to(kiln::kInt64).matmul(b.to(kiln::kInt64)), want, kref::kExact));
}

TEST(Large, BatchedMatmulMatchesPerBatchProducts) {
  kiln::manual_seed(5);
  Tensor a = kiln::randint(-3, 4, {6, 40, 50}).to(kiln::kFloat64);
  Tensor b = kiln::randint(-3, 4, {6, 50, 30}).to(kiln::kFloat64);
  Tensor c = kiln::bmm(a, b);
  for (std::int64_t i = 0; i < 6; ++i)
    EXPECT_TRUE(kref::close(c.select(0, i), plain_matmul(a.select(0, i), b.select(0, i)), kref::kExact)) << i;
}

}  // namespace

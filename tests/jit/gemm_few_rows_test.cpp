// gemm() with a handful of rows of A takes the unpacked path
// (gemm_few_rows.h) for the two layouts it knows and falls back to the
// packed GEMM for others; every variant the CPU supports, against a plain
// triple loop, with an epilogue that must see every element of C once.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "jit/kernels/gemm.h"
#include "tests/jit/epilogue_coverage.h"
#include "jit/kernels/gemm_few_rows.h"

namespace {

using namespace kiln::jit::kernels;

using kgemm::Coverage;

// Multiplies m x k by k x n with B stored transposed (`b_transposed`: B's
// columns contiguous) or row-major, A's rows contiguous unless `a_strided`.
template <class T>
void check(std::int64_t m, std::int64_t n, std::int64_t k, bool b_transposed, bool a_strided,
           const GemmConfig* config = nullptr) {
  std::mt19937 rng(static_cast<unsigned>(m * 7919 + n * 131 + k));
  std::uniform_int_distribution<int> quarter(-8, 8);  // multiples of 1/4: exact sums
  std::vector<T> a(m * k * 2), b(k * n), c(m * n, T(-7)), want(m * n);
  for (T& x : a) x = T(quarter(rng)) / 4;
  for (T& x : b) x = T(quarter(rng)) / 4;
  const std::int64_t a_cs = a_strided ? 2 : 1;
  MatrixRef<const T> ar{a.data(), k * a_cs, a_cs};
  MatrixRef<const T> br = b_transposed ? MatrixRef<const T>{b.data(), 1, k} : MatrixRef<const T>{b.data(), n, 1};
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t kk = 0; kk < k; ++kk) s += double(ar.at(i, kk)) * double(br.at(kk, j));
      want[i * n + j] = T(s);
    }
  Coverage cov(m, n);
  const GemmEpilogue epilogue = cov.epilogue();
  if (config) gemm(m, n, k, ar, br, MatrixRef<T>{c.data(), n, 1}, *config, &epilogue);
  else gemm(m, n, k, ar, br, MatrixRef<T>{c.data(), n, 1}, &epilogue);
  for (std::int64_t i = 0; i < m * n; ++i) {
    ASSERT_EQ(c[i], want[i]) << "element " << i;
    ASSERT_EQ(cov.seen[i], 1) << "the epilogue saw element " << i << " " << cov.seen[i] << " times";
  }
}

std::vector<GemmVariant> supported_variants() {
  std::vector<GemmVariant> variants = {GemmVariant::Baseline};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) variants.push_back(GemmVariant::Avx2);
  if (__builtin_cpu_supports("avx512f")) variants.push_back(GemmVariant::Avx512);
  return variants;
}

TEST(GemmFewRows, BothLayoutsEveryVariantAgainstAPlainLoop) {
  for (GemmVariant v : supported_variants()) {
    set_gemm_variant(v);
    // 1-7 rows: every size of the last block of rows (blocks of 4).
    for (std::int64_t m : {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{5}, std::int64_t{6},
                           std::int64_t{7}, kFewRows, kFewRows + 1})
      for (std::int64_t n : {1, 5, 64, 300, 1100})
        for (std::int64_t k : {1, 7, 33, 784})
          for (bool b_transposed : {true, false}) {
            SCOPED_TRACE(testing::Message() << "variant " << int(v) << " m " << m << " n " << n << " k " << k
                                            << (b_transposed ? " B^T" : " B"));
            check<float>(m, n, k, b_transposed, false);
            check<double>(m, n, k, b_transposed, false);
          }
  }
  set_gemm_variant(GemmVariant::Best);
}

// Many rows by a few columns, B's columns contiguous: the heuristic takes
// the unpacked path, its row blocks split over the kernel threads (the
// larger products here are parallel), the last block of 1-3 rows.
TEST(GemmFewRows, AFewColumnsOfManyRowsEveryVariantAgainstAPlainLoop) {
  for (GemmVariant v : supported_variants()) {
    set_gemm_variant(v);
    for (std::int64_t m : {17, 130, 1001})
      for (std::int64_t n : {std::int64_t{1}, std::int64_t{10}, kFewColumns})
        for (std::int64_t k : {7, 512}) {
          SCOPED_TRACE(testing::Message() << "variant " << int(v) << " m " << m << " n " << n << " k " << k);
          ASSERT_TRUE(default_gemm_config({4, true, false, m, n, k}).few_rows);
          check<float>(m, n, k, true, false);
          check<double>(m, n, k, true, false);
        }
    // Past the heuristic's columns, as the tuner may choose it.
    GemmConfig tuned = default_gemm_config({4, true, false, 1001, kFewColumnsTunable, 512});
    ASSERT_FALSE(tuned.few_rows);
    tuned.few_rows = true;
    check<float>(1001, kFewColumnsTunable, 512, true, false, &tuned);
  }
  set_gemm_variant(GemmVariant::Best);
}

TEST(GemmFewRows, OtherLayoutsFallBackToThePackedGemm) {
  float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {};
  // A's rows strided: the unpacked path declines, gemm() still multiplies.
  EXPECT_FALSE(gemm_few_rows(2, 2, 2, MatrixRef<const float>{a, 1, 2}, MatrixRef<const float>{b, 2, 1},
                             MatrixRef<float>{c, 2, 1}, nullptr, GemmVariant::Baseline));
  EXPECT_EQ(c[0], 0.0f) << "nothing written when declining";
  EXPECT_TRUE(gemm_few_rows(2, 2, 2, MatrixRef<const float>{a, 2, 1}, MatrixRef<const float>{b, 1, 2},
                            MatrixRef<float>{c, 2, 1}, nullptr, GemmVariant::Baseline));
  EXPECT_EQ(c[3], 4.0f) << "a linear layer's layout takes the unpacked path";
  check<float>(3, 17, 9, true, true);
  check<float>(3, 17, 9, false, true);
}

}  // namespace

// Softmax and float32 sums as the tier-1 kernels run them: exp inline,
// exp(x - max) kept in a row buffer between the sum's loop and the storing
// loop (in the output's row, or on the stack and recomputed when the row
// is past the stack's budget), float32 sums
// in float blocks added in double, the next row prefetched. Each case runs
// on tier 0 and tier 1 (which must agree and fuse into one kernel) and is
// checked against a plain reference in double: row lengths around the
// block size and the buffer budget, rows shorter than a vector,
// non-contiguous inputs, -inf and large values; and tier 1's results do
// not depend on the thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include <kiln/kiln.h>

#include "jit/fusion/kernel_phases.h"
#include "tests/common/reference.h"
#include "tests/jit_tier1/reduction_cases.h"
#include "tests/jit_tier1/tiers.h"

namespace {

using kiln::Tensor;
using reduction_cases::matches;
using reduction_cases::one_kernel;

constexpr double kInf = std::numeric_limits<double>::infinity();

// Normal values of standard deviation `scale`, rounded to float.
kref::Ref normal(const kref::Shape& s, unsigned seed, double scale = 1) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> d(0, scale);
  kref::Ref r = kref::Ref::filled(s, 0);
  for (double& x : r.v) x = static_cast<float>(d(gen));
  return r;
}

// The values of f() computed on tier 1.
kref::Ref on_tier1(const std::function<Tensor()>& f) {
  tiers::Tier1Scope scope;
  return kref::of(f());
}

// f() on tier 1 matches `want` within `rel` (reduction_cases::matches).
::testing::AssertionResult tier1_matches(const std::function<Tensor()>& f, const kref::Ref& want, double rel) {
  return matches(kref::make(on_tier1(f), kiln::kFloat64), want, rel);
}

TEST(SoftmaxKernel, RowsAroundTheBlockAndTheBufferBudget) {
  const std::int64_t budget = kiln::jit::kRowCacheBytes / 4;  // float32 elements of one row buffer
  for (std::int64_t cols : {std::int64_t{1}, std::int64_t{3}, std::int64_t{7}, std::int64_t{8}, std::int64_t{255},
                            std::int64_t{256}, std::int64_t{257}, std::int64_t{1000}, std::int64_t{1024},
                            std::int64_t{4097}, budget, budget + 1}) {
    const kref::Ref ref = normal({3, cols}, static_cast<unsigned>(cols), 3);
    const Tensor x = kref::make(ref, kiln::kFloat32);
    EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.softmax(1)}; })) << cols << " columns";
    const kref::Ref want = kref::softmax(ref, 1);
    EXPECT_TRUE(tier1_matches([&] { return x.softmax(1); }, want, 1e-5))
        << cols << " columns";
    EXPECT_TRUE(tier1_matches([&] { return x.log_softmax(1); }, kref::softmax(ref, 1, true), 1e-5))
        << cols << " columns";
    // Its storing loop reads x: exp waits on the stack, or is recomputed past the budget.
    EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x * x.softmax(1)}; })) << cols << " columns";
    EXPECT_TRUE(tier1_matches([&] { return x * x.softmax(1); }, kref::zip(ref, want, [](double a, double b) { return a * b; }), 1e-5)) << cols << " columns";
  }
}

TEST(SoftmaxKernel, NonContiguousInputs) {
  const kref::Ref ref = normal({300, 40}, 21, 2);
  const Tensor x = kref::make(ref, kiln::kFloat32);
  // Rows read down the columns of x (inner stride 40), and every other column.
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.t().softmax(1)}; }));
  EXPECT_TRUE(tier1_matches([&] { return x.t().softmax(1); }, kref::softmax(kref::transpose(ref, 0, 1), 1), 1e-5));
  const kref::Ref wide = normal({6, 1200}, 22, 2);
  const Tensor w = kref::make(wide, kiln::kFloat32);
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{w.slice(1, 0, 1200, 2).softmax(1)}; }));
  const kref::Ref every_other = kref::build({6, 600}, [&](const kref::Shape& i) { return wide.at({i[0], 2 * i[1]}); });
  EXPECT_TRUE(tier1_matches([&] { return w.slice(1, 0, 1200, 2).softmax(1); }, kref::softmax(every_other, 1), 1e-5));
}

TEST(SoftmaxKernel, InfiniteAndLargeValues) {
  const std::int64_t cols = 300;
  kref::Ref ref = normal({5, cols}, 23, 1);
  for (std::int64_t j = 0; j < cols; j += 3) ref.v[j] = -kInf;               // row 0: a third -inf
  for (std::int64_t j = 0; j < cols; ++j) ref.v[cols + j] = j % 2 ? 88.5 : -100;  // row 1: exp overflows alone
  ref.v[2 * cols + 17] = 1e30;                                               // row 2: one huge value
  for (std::int64_t j = 0; j < cols; ++j) ref.v[3 * cols + j] = -1e6 + 0.25 * j;  // row 3: all far below 0
  ref.v[4 * cols + 5] = -3.4e38;                                             // row 4: the lowest float
  const Tensor x = kref::make(ref, kiln::kFloat32);
  kref::Ref as_float = ref;
  for (double& v : as_float.v) v = static_cast<float>(v);
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.softmax(1), x.log_softmax(1)}; }));
  EXPECT_TRUE(tier1_matches([&] { return x.softmax(1); }, kref::softmax(as_float, 1),
                      1e-5));

  // Rows without a finite maximum give NaN on both tiers, as in LibTorch.
  kref::Ref odd = normal({3, 40}, 24, 1);
  for (std::int64_t j = 0; j < 40; ++j) odd.v[j] = -kInf;
  odd.v[40 + 7] = kInf;
  odd.v[80 + 9] = std::numeric_limits<double>::quiet_NaN();
  const Tensor y = kref::make(odd, kiln::kFloat32);
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{y.softmax(1)}; }));
  const kref::Ref got = on_tier1([&] { return y.softmax(1); });
  for (std::int64_t j = 0; j < 40; ++j) {
    EXPECT_TRUE(std::isnan(got.v[j])) << "all -inf: element " << j;
    EXPECT_TRUE(std::isnan(got.v[40 + j])) << "+inf: element " << j;
    EXPECT_TRUE(std::isnan(got.v[80 + j])) << "NaN: element " << j;
  }
}

// exp of float32 is inline code on tier 1: within 2 ulp of exp in double
// wherever the result is a normal float, within one subnormal step below,
// and exact at the ends.
TEST(ExpKernel, WithinTwoUlpsOverTheWholeRange) {
  std::vector<float> v;
  for (double x = -110; x < 90; x += 0.00731) v.push_back(static_cast<float>(x));
  for (double x : {0.0, -0.0, 88.7228, 88.7229, 88.72283935546875, -87.3365, -103.97, -103.98, 1e-8, -1e-8})
    v.push_back(static_cast<float>(x));
  v.push_back(static_cast<float>(kInf));
  v.push_back(static_cast<float>(-kInf));
  v.push_back(std::numeric_limits<float>::quiet_NaN());
  const Tensor x = kiln::tensor(v);
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.exp(), x.sigmoid()}; }));
  std::vector<float> got;
  {
    tiers::Tier1Scope scope;
    got = x.exp().to_vector<float>();
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double want = std::exp(static_cast<double>(v[i]));
    const float want_f = static_cast<float>(want);
    if (std::isnan(v[i])) {
      EXPECT_TRUE(std::isnan(got[i]));
    } else if (std::isinf(want_f) || want_f == 0) {
      EXPECT_EQ(got[i], want_f) << "exp(" << v[i] << ")";
    } else if (want_f < std::numeric_limits<float>::min()) {
      EXPECT_LE(std::abs(got[i] - want), std::numeric_limits<float>::denorm_min()) << "exp(" << v[i] << ")";
    } else {
      const double ulp = std::nextafter(want_f, std::numeric_limits<float>::infinity()) - want_f;
      EXPECT_LE(std::abs(got[i] - want), 2 * ulp) << "exp(" << v[i] << ")";
    }
  }
}

// A float32 sum accumulates blocks in float: its error is bounded by a few
// float ulps of the sum of magnitudes (1e-6 of it is 16 ulps), as LibTorch's
// float sums are, not of the sum itself.
::testing::AssertionResult sums_within(const kref::Ref& got, const kref::Ref& x, std::int64_t cols) {
  for (std::size_t r = 0; r < got.v.size(); ++r) {
    double sum = 0, magnitude = 0;
    for (std::int64_t j = 0; j < cols; ++j) sum += x.v[r * cols + j], magnitude += std::abs(x.v[r * cols + j]);
    if (!(std::abs(got.v[r] - sum) <= 1e-6 * magnitude))
      return ::testing::AssertionFailure() << "row " << r << ": " << got.v[r] << ", want " << sum << " (sum of |x| "
                                           << magnitude << ")";
  }
  return ::testing::AssertionSuccess();
}

TEST(SumKernel, FloatBlocksStayWithinTheTolerance) {
  // Rows around the block size, and a sum over every dim of an odd length;
  // values of very different magnitudes that cancel, so float blocks lose bits.
  for (std::int64_t cols : {std::int64_t{5}, std::int64_t{255}, std::int64_t{256}, std::int64_t{257},
                            std::int64_t{3001}}) {
    kref::Ref ref = normal({4, cols}, static_cast<unsigned>(cols) + 40, 1);
    for (std::size_t i = 0; i < ref.v.size(); i += 7) ref.v[i] = static_cast<float>(ref.v[i] * 1e4);
    const Tensor x = kref::make(ref, kiln::kFloat32);
    EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.sum({1}, false), (x * x).sum({1}, true)}; }, 1e-6))
        << cols << " columns";
    EXPECT_TRUE(sums_within(on_tier1([&] { return x.sum({1}, false); }), ref, cols)) << cols << " columns";
  }
  // Sums over every dim (partial kernels, blocks of jit::kWholeSumBlock):
  // lengths around a block and many blocks, with the same spikes.
  for (std::int64_t n : {std::int64_t{69631}, std::int64_t{69632}, std::int64_t{69633}, std::int64_t{300007}}) {
    kref::Ref flat = normal({n}, static_cast<unsigned>(n % 1000) + 41, 5);
    for (std::size_t i = 0; i < flat.v.size(); i += 7) flat.v[i] = static_cast<float>(flat.v[i] * 1e4);
    const Tensor f = kref::make(flat, kiln::kFloat32);
    EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{f.sum()}; }, 1e-6)) << n << " elements";
    EXPECT_TRUE(sums_within(on_tier1([&] { return f.sum(); }), flat, n)) << n << " elements";
  }
}

TEST(SumKernel, SoftmaxAndSumDoNotDependOnTheThreadCount) {
  const int before = kiln::get_num_threads();
  const Tensor rows = kref::make(normal({64, 1000}, 51, 3), kiln::kFloat32);
  const Tensor flat = kref::make(normal({(1 << 20) + 37}, 52, 1), kiln::kFloat32);
  auto run = [&](int threads) {
    kiln::set_num_threads(threads);
    tiers::Tier1Scope scope;
    std::vector<float> out = rows.softmax(1).to_vector<float>();
    const float s = flat.sum().item<float>();
    const std::vector<float> row_sums = rows.sum({1}, false).to_vector<float>();
    out.push_back(s);
    out.insert(out.end(), row_sums.begin(), row_sums.end());
    return out;
  };
  const std::vector<float> one = run(1), two = run(2), again = run(1);
  kiln::set_num_threads(before);
  ASSERT_EQ(one.size(), two.size());
  EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)), 0) << "1 vs 2 threads";
  EXPECT_EQ(std::memcmp(one.data(), again.data(), one.size() * sizeof(float)), 0) << "run to run";
}

}  // namespace

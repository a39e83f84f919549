// matmul (1-D, 2-D, batched with broadcasting), mm, bmm, addmm and
// nn::functional::linear against kref, for float and integer dtypes, with
// transposed and sliced operands and zero-size dims.
// Inputs are multiples of 0.5 in [-2, 2] with inner dims <= 16, so every
// product and partial sum is exact in float32: all comparisons are exact
// except float32 linear/addmm with fractional alpha/beta (rel 1e-5 / abs 1e-6).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;
using kref::Ref;
using kref::Shape;

Ref halves(const Shape& s, unsigned seed, bool integral) {
  return kref::random_steps(s, seed, -4, 4, integral ? 1.0 : 0.5);
}

struct MatmulShapes {
  Shape a, b;
};

const MatmulShapes kShapes[] = {
    {{5}, {5}},              // dot -> zero-dim
    {{3, 5}, {5}},           // matrix @ vector -> [3]
    {{5}, {5, 4}},           // vector @ matrix -> [4]
    {{3, 5}, {5, 4}},        // mm
    {{2, 3, 5}, {5, 4}},     // batched @ matrix
    {{5}, {2, 5, 4}},        // vector @ batched -> [2, 4]
    {{2, 3, 5}, {5}},        // batched @ vector -> [2, 3]
    {{2, 3, 5}, {2, 5, 4}},  // bmm-like
    {{2, 1, 3, 5}, {4, 5, 2}},  // batch dims broadcast -> [2, 4, 3, 2]
    {{1, 16}, {16, 1}},
    {{0, 5}, {5, 4}},        // zero rows
    {{3, 0}, {0, 4}},        // zero inner dim: all zeros
};

class Matmul : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(Matmul, MatchesReferenceForEveryRankCombination) {
  const kiln::ScalarType dt = GetParam();
  const bool integral = !kiln::is_floating_point(dt);
  unsigned seed = 1;
  for (const auto& s : kShapes) {
    SCOPED_TRACE(kref::str(s.a) + " @ " + kref::str(s.b));
    Ref a = halves(s.a, seed++, integral), b = halves(s.b, seed++, integral);
    Tensor out = kiln::matmul(kref::make(a, dt), kref::make(b, dt));
    EXPECT_EQ(out.dtype(), dt);
    EXPECT_TRUE(kref::close(out, kref::matmul(a, b), kref::kExact));
    EXPECT_TRUE(kref::close(kref::make(a, dt).matmul(kref::make(b, dt)), kref::matmul(a, b), kref::kExact));
  }
}

TEST_P(Matmul, TransposedAndSlicedOperands) {
  const kiln::ScalarType dt = GetParam();
  const bool integral = !kiln::is_floating_point(dt);
  Ref a = halves({6, 4}, 30, integral), b = halves({5, 6}, 31, integral);
  Tensor ta = kref::make(a, dt), tb = kref::make(b, dt);
  // a^T @ b^T: [4, 6] @ [6, 5]
  EXPECT_TRUE(kref::close(ta.t().matmul(tb.t()), kref::matmul(kref::transpose(a, 0, 1), kref::transpose(b, 0, 1)),
                          kref::kExact));
  // every other row of a: [3, 4] @ columns 0..3 of b^T... [4, 5]
  Ref as = kref::slice(a, 0, 0, 6, 2), bs = kref::transpose(kref::slice(b, 1, 1, 5), 0, 1);
  EXPECT_TRUE(kref::close(kiln::mm(ta.slice(0, 0, 6, 2), tb.slice(1, 1, 5).t()), kref::matmul(as, bs), kref::kExact));
  // an expanded batch: [3, 6, 4] (stride 0 batch) @ [4, 2]
  Ref c = halves({4, 2}, 32, integral);
  Tensor batched = ta.unsqueeze(0).expand({3, 6, 4});
  EXPECT_TRUE(kref::close(batched.matmul(kref::make(c, dt)), kref::matmul(kref::expand(a, {3, 6, 4}), c), kref::kExact));
  // a vector that is a strided column
  Tensor col = ta.select(1, 2);  // [6], stride 4
  EXPECT_TRUE(kref::close(kiln::matmul(tb, col), kref::matmul(b, kref::select(a, 1, 2)), kref::kExact));
}

TEST_P(Matmul, MmAndBmm) {
  const kiln::ScalarType dt = GetParam();
  const bool integral = !kiln::is_floating_point(dt);
  Ref a = halves({3, 7}, 40, integral), b = halves({7, 2}, 41, integral);
  EXPECT_TRUE(kref::close(kiln::mm(kref::make(a, dt), kref::make(b, dt)), kref::matmul(a, b), kref::kExact));
  EXPECT_TRUE(kref::close(kref::make(a, dt).mm(kref::make(b, dt)), kref::matmul(a, b), kref::kExact));
  Ref p = halves({4, 3, 7}, 42, integral), q = halves({4, 7, 2}, 43, integral);
  Tensor bmm = kiln::bmm(kref::make(p, dt), kref::make(q, dt));
  EXPECT_EQ(bmm.sizes().vec(), (std::vector<std::int64_t>{4, 3, 2}));
  EXPECT_TRUE(kref::close(bmm, kref::matmul(p, q), kref::kExact));
  Tensor qt = kref::make(kref::transpose(q, 1, 2), dt).transpose(1, 2);  // non-contiguous [4, 7, 2]
  EXPECT_TRUE(kref::close(kref::make(p, dt).bmm(qt), kref::matmul(p, q), kref::kExact));
}

TEST_P(Matmul, AddmmWithAndWithoutAlphaBeta) {
  const kiln::ScalarType dt = GetParam();
  const bool integral = !kiln::is_floating_point(dt);
  Ref self = halves({3, 2}, 50, integral), bias = halves({2}, 51, integral);
  Ref m1 = halves({3, 5}, 52, integral), m2 = halves({5, 2}, 53, integral);
  Ref prod = kref::matmul(m1, m2);
  Tensor t1 = kref::make(m1, dt), t2 = kref::make(m2, dt);
  EXPECT_TRUE(kref::close(kiln::addmm(kref::make(self, dt), t1, t2), kref::zip(self, prod, std::plus<>()),
                          kref::kExact));
  EXPECT_TRUE(kref::close(kiln::addmm(kref::make(bias, dt), t1, t2),  // self broadcast from [2]
                          kref::zip(bias, prod, std::plus<>()), kref::kExact));
  EXPECT_TRUE(kref::close(kiln::addmm(kref::make(self, dt), t1, t2, 2, 3),
                          kref::zip(self, prod, [](double s, double p) { return 2 * s + 3 * p; }), kref::kExact));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Matmul, ::testing::Values(kiln::kFloat32, kiln::kFloat64, kiln::kInt32, kiln::kInt64),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

TEST(Addmm, FractionalAlphaBetaOnFloat) {
  Ref self({2, 2}, {1, 2, 3, 4}), m1({2, 3}, {1, 0, 2, 0, 1, 1}), m2({3, 2}, {1, 1, 2, 0, 0, 3});
  Tensor out = kiln::addmm(kref::make(self, kiln::kFloat32), kref::make(m1, kiln::kFloat32),
                           kref::make(m2, kiln::kFloat32), 0.5, 0.1);
  Ref want = kref::zip(self, kref::matmul(m1, m2), [](double s, double p) { return 0.5 * s + 0.1 * p; });
  EXPECT_TRUE(kref::close(out, want, kref::kFloatTol));
}

TEST(Linear, WithAndWithoutBiasOnBatchedInput) {
  for (kiln::ScalarType dt : {kiln::kFloat32, kiln::kFloat64}) {
    SCOPED_TRACE(kiln::to_string(dt));
    Ref x = halves({2, 3, 4}, 60, false), w = halves({5, 4}, 61, false), b = halves({5}, 62, false);
    Ref xw = kref::matmul(x, kref::transpose(w, 0, 1));
    Tensor y = kiln::nn::functional::linear(kref::make(x, dt), kref::make(w, dt), kref::make(b, dt));
    EXPECT_EQ(y.sizes().vec(), (std::vector<std::int64_t>{2, 3, 5}));
    EXPECT_TRUE(kref::close(y, kref::zip(xw, b, std::plus<>()), kref::kExact));
    Tensor y0 = kiln::nn::functional::linear(kref::make(x, dt), kref::make(w, dt));
    EXPECT_TRUE(kref::close(y0, xw, kref::kExact));
    Tensor y1 = kiln::nn::functional::linear(kref::make(kref::select(x, 0, 1), dt).select(0, 2), kref::make(w, dt),
                                             kref::make(b, dt));  // 1-D input [4] -> [5]
    EXPECT_TRUE(kref::close(y1, kref::select(kref::select(kref::zip(xw, b, std::plus<>()), 0, 1), 0, 2), kref::kExact));
  }
}

TEST(MatmulLarge, SquareProductMatchesReferenceBeyondOneTile) {
  // 67 x 131 @ 131 x 45: not a multiple of any tile size; integer-valued floats keep it exact.
  Ref a = halves({67, 131}, 70, true), b = halves({131, 45}, 71, true);
  EXPECT_TRUE(kref::close(kiln::matmul(kref::make(a, kiln::kFloat32), kref::make(b, kiln::kFloat32)),
                          kref::matmul(a, b), kref::kExact));
}

TEST(MatmulLarge, RepeatedProductStaysCorrectOnceHot) {
  // The same segment run many times may be compiled in the background; the result must not change.
  Ref a = halves({8, 16}, 80, false), b = halves({16, 8}, 81, false);
  Ref want = kref::reduce(kref::matmul(a, b), {}, false, kref::sum_of);
  Tensor ta = kref::make(a, kiln::kFloat32), tb = kref::make(b, kiln::kFloat32);
  for (int i = 0; i < 50; ++i) {
    Tensor s = (ta.matmul(tb) + 1).sum();
    ASSERT_EQ(s.item<double>(), want.v[0] + 64) << "iteration " << i;
  }
}

}  // namespace

// Binary elementwise ops (+ - * / pow maximum minimum, alpha forms, numbers
// on either side) against kref, for every dtype, with broadcasting,
// non-contiguous and zero-size operands.
// Tolerances: float32 rel 1e-5 / abs 1e-6 against float64; float64 1e-12;
// integer and bool results exact.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;
using kref::Ref;
using kref::Shape;

// Deterministic values in [lo, hi]; whole numbers for integer dtypes.
Ref values(const Shape& s, unsigned seed, double lo, double hi, kiln::ScalarType dt) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Ref r = Ref::filled(s, 0);
  for (double& x : r.v) x = kiln::is_floating_point(dt) ? u(gen) : std::round(u(gen));
  return kref::cast(r, dt);
}

struct BinaryCase {
  std::string name;
  std::function<Tensor(const Tensor&, const Tensor&)> op;
  std::function<double(double, double)> ref;
  double a_lo, a_hi, b_lo, b_hi;
  bool integral_ok;  // keeps an integral dtype (div does not)
};

std::vector<BinaryCase> cases() {
  return {
      {"add", [](const Tensor& a, const Tensor& b) { return a + b; }, [](double a, double b) { return a + b; }, -5, 5,
       -5, 5, true},
      {"add_alpha", [](const Tensor& a, const Tensor& b) { return a.add(b, 3); },
       [](double a, double b) { return a + 3 * b; }, -5, 5, -5, 5, true},
      {"sub", [](const Tensor& a, const Tensor& b) { return kiln::sub(a, b); },
       [](double a, double b) { return a - b; }, -5, 5, -5, 5, true},
      {"sub_alpha", [](const Tensor& a, const Tensor& b) { return a.sub(b, 2); },
       [](double a, double b) { return a - 2 * b; }, -5, 5, -5, 5, true},
      {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }, [](double a, double b) { return a * b; }, -5, 5,
       -5, 5, true},
      {"div", [](const Tensor& a, const Tensor& b) { return a / b; }, [](double a, double b) { return a / b; }, -5, 5,
       1, 6, false},
      {"pow", [](const Tensor& a, const Tensor& b) { return a.pow(b); },
       [](double a, double b) { return std::pow(a, b); }, 0, 3, 0, 3, true},
      {"maximum", [](const Tensor& a, const Tensor& b) { return kiln::maximum(a, b); },
       [](double a, double b) { return std::max(a, b); }, -5, 5, -5, 5, true},
      {"minimum", [](const Tensor& a, const Tensor& b) { return a.minimum(b); },
       [](double a, double b) { return std::min(a, b); }, -5, 5, -5, 5, true},
  };
}

struct ShapePair {
  Shape a, b;
};

const ShapePair kShapes[] = {
    {{3, 4}, {3, 4}},    {{3, 1}, {1, 4}}, {{2, 3, 4}, {4}}, {{2, 1, 4}, {3, 1}}, {{}, {2, 3}},
    {{2, 3}, {}},        {{}, {}},         {{0, 3}, {3}},    {{0, 3}, {1, 3}},    {{4, 0}, {4, 1}},
};

class Binary : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(Binary, EveryOpMatchesReferenceOverBroadcastShapes) {
  const kiln::ScalarType dt = GetParam();
  unsigned seed = 1;
  for (const auto& c : cases()) {
    for (const auto& sp : kShapes) {
      SCOPED_TRACE(c.name + " " + kref::str(sp.a) + " x " + kref::str(sp.b));
      Ref a = values(sp.a, seed++, c.a_lo, c.a_hi, dt), b = values(sp.b, seed++, c.b_lo, c.b_hi, dt);
      Tensor out = c.op(kref::make(a, dt), kref::make(b, dt));
      kiln::ScalarType want_dt = c.integral_ok ? dt : kiln::promote_types(dt, kiln::kFloat32);
      EXPECT_EQ(out.dtype(), want_dt);
      EXPECT_TRUE(kref::close(out, kref::cast(kref::zip(a, b, c.ref), want_dt), kref::tol_for(want_dt)));
    }
  }
}

TEST_P(Binary, EveryOpMatchesReferenceOnNonContiguousOperands) {
  const kiln::ScalarType dt = GetParam();
  unsigned seed = 100;
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    Ref a = values({4, 6}, seed++, c.a_lo, c.a_hi, dt), b = values({6, 4}, seed++, c.b_lo, c.b_hi, dt);
    Ref col = values({4, 1}, seed++, c.b_lo, c.b_hi, dt);
    Tensor ta = kref::make(a, dt), tb = kref::make(b, dt), tcol = kref::make(col, dt);
    kiln::ScalarType want_dt = c.integral_ok ? dt : kiln::promote_types(dt, kiln::kFloat32);
    kref::Tol tol = kref::tol_for(want_dt);
    // transposed [4, 6] with a contiguous [4, 6]
    EXPECT_TRUE(kref::close(c.op(tb.t(), ta), kref::cast(kref::zip(kref::transpose(b, 0, 1), a, c.ref), want_dt), tol));
    // sliced with a step on both dims: [2, 3]
    Tensor sa = ta.slice(0, 0, 4, 2).slice(1, 1, 6, 2);
    Ref ra = kref::slice(kref::slice(a, 0, 0, 4, 2), 1, 1, 6, 2);
    Tensor sb = tb.slice(0, 3, 6).slice(1, 0, 4, 2).t();  // rows 3..5, cols 0 and 2, transposed: [2, 3]
    Ref rb = kref::transpose(kref::slice(kref::slice(b, 0, 3, 6), 1, 0, 4, 2), 0, 1);
    EXPECT_TRUE(kref::close(c.op(sa, sb), kref::cast(kref::zip(ra, rb, c.ref), want_dt), tol));
    // an expanded column against the full matrix
    Tensor ex = tcol.expand({4, 6});
    EXPECT_TRUE(kref::close(c.op(ta, ex), kref::cast(kref::zip(a, kref::expand(col, {4, 6}), c.ref), want_dt), tol));
  }
}

TEST_P(Binary, NumbersOnEitherSideMatchReference) {
  const kiln::ScalarType dt = GetParam();
  Ref a = values({2, 3}, 7, 1, 5, dt);
  Tensor x = kref::make(a, dt);
  kref::Tol tol = kref::tol_for(dt);
  EXPECT_TRUE(kref::close(x + 2, kref::map(a, [](double v) { return v + 2; }), tol));
  EXPECT_TRUE(kref::close(2 + x, kref::map(a, [](double v) { return 2 + v; }), tol));
  EXPECT_TRUE(kref::close(x - 3, kref::map(a, [](double v) { return v - 3; }), tol));
  EXPECT_TRUE(kref::close(3 - x, kref::map(a, [](double v) { return 3 - v; }), tol));
  EXPECT_TRUE(kref::close(x * 4, kref::map(a, [](double v) { return v * 4; }), tol));
  EXPECT_TRUE(kref::close(4 * x, kref::map(a, [](double v) { return 4 * v; }), tol));
  EXPECT_TRUE(kref::close(x.add(2, 3), kref::map(a, [](double v) { return v + 6; }), tol));
  EXPECT_TRUE(kref::close(kiln::sub(x, 1, 2), kref::map(a, [](double v) { return v - 2; }), tol));
  EXPECT_TRUE(kref::close(x.pow(2), kref::map(a, [](double v) { return v * v; }), tol));
  EXPECT_TRUE(kref::close(kiln::pow(2, x), kref::map(a, [](double v) { return std::pow(2, v); }), tol));
  kiln::ScalarType fdt = kiln::promote_types(dt, kiln::kFloat32);
  kref::Tol ftol = kref::tol_for(fdt);
  EXPECT_TRUE(kref::close(x / 4, kref::cast(kref::map(a, [](double v) { return v / 4; }), fdt), ftol));
  EXPECT_TRUE(kref::close(12 / x, kref::cast(kref::map(a, [](double v) { return 12 / v; }), fdt), ftol));
  EXPECT_EQ((x / 4).dtype(), fdt);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Binary, ::testing::Values(kiln::kFloat32, kiln::kFloat64, kiln::kInt32, kiln::kInt64),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

TEST(BinaryFloat, PowWithFractionalAndNegativeExponents) {
  Ref a({4}, {0.5, 1, 2, 9});
  Tensor x = kref::make(a, kiln::kFloat32);
  EXPECT_TRUE(kref::close(x.pow(0.5), kref::map(a, [](double v) { return std::sqrt(v); }), kref::kFloatTol));
  EXPECT_TRUE(kref::close(x.pow(-1), kref::map(a, [](double v) { return 1 / v; }), kref::kFloatTol));
  EXPECT_TRUE(kref::close(x.pow(kiln::tensor({-2.0f})), kref::map(a, [](double v) { return 1 / (v * v); }),
                          kref::kFloatTol));
}

TEST(BinaryBool, AddAndMulOfBoolsAreLogicalAndStayBool) {
  Tensor a = kiln::tensor({true, true, false, false});
  Tensor b = kiln::tensor({true, false, true, false});
  Tensor s = a + b, p = a * b;
  EXPECT_EQ(s.dtype(), kiln::kBool);
  EXPECT_EQ(p.dtype(), kiln::kBool);
  EXPECT_TRUE(kref::equals(s, {4}, {1, 1, 1, 0}));
  EXPECT_TRUE(kref::equals(p, {4}, {1, 0, 0, 0}));
  EXPECT_TRUE(kref::equals(kiln::maximum(a, b), {4}, {1, 1, 1, 0}));
  EXPECT_TRUE(kref::equals(kiln::minimum(a, b), {4}, {1, 0, 0, 0}));
}

TEST(BinaryInt, IntegerArithmeticIsExactBeyondFloatPrecision) {
  // 2^40 + 1 is not representable in float32; Long arithmetic must not pass through it.
  const std::int64_t big = (std::int64_t{1} << 40) + 1;
  Tensor x = kiln::full({3}, big);
  ASSERT_EQ(x.dtype(), kiln::kInt64);
  std::vector<std::int64_t> got = (x + 2).to_vector<std::int64_t>();
  EXPECT_EQ(got, std::vector<std::int64_t>(3, big + 2));
  EXPECT_EQ((x * 3).to_vector<std::int64_t>(), std::vector<std::int64_t>(3, big * 3));
}

TEST(BinaryInt, FreeFunctionsMatchMethods) {
  Tensor a = kiln::arange(6).reshape({2, 3}), b = kiln::arange(3);
  EXPECT_TRUE(kref::equals(kiln::add(a, b), {2, 3}, {0, 2, 4, 3, 5, 7}));
  EXPECT_TRUE(kref::equals(kiln::add(a, b, 2), {2, 3}, {0, 3, 6, 3, 6, 9}));
  EXPECT_TRUE(kref::equals(kiln::mul(a, b), {2, 3}, {0, 1, 4, 0, 4, 10}));
  EXPECT_TRUE(kref::equals(kiln::mul(a, 2), {2, 3}, {0, 2, 4, 6, 8, 10}));
  EXPECT_TRUE(kref::equals(kiln::div(a, 2), {2, 3}, {0, 0.5, 1, 1.5, 2, 2.5}));
  EXPECT_TRUE(kref::equals(kiln::add(a, 1), {2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(kref::equals(kiln::pow(a, 2), {2, 3}, {0, 1, 4, 9, 16, 25}));
  EXPECT_TRUE(kref::equals(kiln::pow(a, b), {2, 3}, {1, 1, 4, 1, 4, 25}));
}

}  // namespace

// Comparisons (eq ne lt le gt ge as methods, functions and operators),
// logical_and/or/not, where and clamp against kref. Results are exact
// (Bool, or values copied from the inputs).
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;
using kref::Ref;

struct CompareCase {
  std::string name;
  std::function<Tensor(const Tensor&, const Tensor&)> op;
  std::function<Tensor(const Tensor&, kiln::Scalar)> op_scalar;
  std::function<bool(double, double)> ref;
};

std::vector<CompareCase> compare_cases() {
  return {
      {"eq", [](auto& a, auto& b) { return a == b; }, [](auto& a, kiln::Scalar s) { return a.eq(s); },
       [](double a, double b) { return a == b; }},
      {"ne", [](auto& a, auto& b) { return kiln::ne(a, b); }, [](auto& a, kiln::Scalar s) { return a != s; },
       [](double a, double b) { return a != b; }},
      {"lt", [](auto& a, auto& b) { return a.lt(b); }, [](auto& a, kiln::Scalar s) { return a < s; },
       [](double a, double b) { return a < b; }},
      {"le", [](auto& a, auto& b) { return a <= b; }, [](auto& a, kiln::Scalar s) { return a.le(s); },
       [](double a, double b) { return a <= b; }},
      {"gt", [](auto& a, auto& b) { return kiln::gt(a, b); }, [](auto& a, kiln::Scalar s) { return a > s; },
       [](double a, double b) { return a > b; }},
      {"ge", [](auto& a, auto& b) { return a >= b; }, [](auto& a, kiln::Scalar s) { return a.ge(s); },
       [](double a, double b) { return a >= b; }},
  };
}

Ref as_bool(const Ref& r) { return kref::map(r, [](double x) { return x != 0 ? 1.0 : 0.0; }); }

class Compare : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(Compare, EveryComparisonBroadcastsAndGivesBool) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(Ref({3, 1}, {-1, 0, 2}), dt), b = kref::cast(Ref({1, 4}, {-1, 0, 1, 2}), dt);
  Tensor ta = kref::make(a, dt), tb = kref::make(b, dt);
  for (const auto& c : compare_cases()) {
    SCOPED_TRACE(c.name);
    Tensor out = c.op(ta, tb);
    EXPECT_EQ(out.dtype(), kiln::kBool);
    EXPECT_TRUE(kref::close(out, kref::zip(a, b, c.ref), kref::kExact));
    Tensor out_t = c.op(tb.t(), ta.t());  // [4, 1] vs [1, 3]: transposed views
    EXPECT_TRUE(kref::close(out_t, kref::zip(kref::transpose(b, 0, 1), kref::transpose(a, 0, 1), c.ref), kref::kExact));
    Tensor out_s = c.op_scalar(ta, 0);
    EXPECT_EQ(out_s.dtype(), kiln::kBool);
    EXPECT_TRUE(kref::close(out_s, kref::map(a, [&](double x) { return c.ref(x, 0) ? 1.0 : 0.0; }), kref::kExact));
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Compare,
                         ::testing::Values(kiln::kFloat32, kiln::kFloat64, kiln::kInt32, kiln::kInt64, kiln::kBool),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

TEST(CompareMixed, IntTensorAgainstFractionalNumberComparesInFloat) {
  Tensor x = kiln::tensor({1, 2, 3}, kiln::kInt32);
  EXPECT_TRUE(kref::equals(x > 2.5, {3}, {0, 0, 1}));
  EXPECT_TRUE(kref::equals(x == 2.0, {3}, {0, 1, 0}));
  EXPECT_TRUE(kref::equals(x.lt(kiln::tensor({1.5, 2.5, 2.5})), {3}, {1, 1, 0}));
}

TEST(CompareMixed, ZeroSizeComparisonIsEmptyBool) {
  Tensor out = kiln::zeros({0, 3}) < kiln::ones({3});
  EXPECT_EQ(out.dtype(), kiln::kBool);
  EXPECT_EQ(out.sizes().vec(), (std::vector<std::int64_t>{0, 3}));
}

TEST(Logical, AndOrNotTreatNonzeroAsTrueForEveryDtype) {
  for (kiln::ScalarType dt : {kiln::kFloat32, kiln::kFloat64, kiln::kInt32, kiln::kInt64, kiln::kBool}) {
    SCOPED_TRACE(kiln::to_string(dt));
    Ref a({2, 2}, {0, 1, 0, 1}), b({2}, {0, 1});
    if (dt != kiln::kBool) a = Ref({2, 2}, {0, -3, 0, 2});
    Tensor ta = kref::make(a, dt), tb = kref::make(b, dt);
    Tensor land = kiln::logical_and(ta, tb), lor = ta.logical_or(tb), lnot = kiln::logical_not(ta);
    EXPECT_EQ(land.dtype(), kiln::kBool);
    EXPECT_EQ(lor.dtype(), kiln::kBool);
    EXPECT_EQ(lnot.dtype(), kiln::kBool);
    EXPECT_TRUE(kref::close(land, as_bool(kref::zip(a, b, [](double x, double y) { return x != 0 && y != 0; })),
                            kref::kExact));
    EXPECT_TRUE(kref::close(lor, as_bool(kref::zip(a, b, [](double x, double y) { return x != 0 || y != 0; })),
                            kref::kExact));
    EXPECT_TRUE(kref::close(lnot, as_bool(kref::map(a, [](double x) { return x == 0; })), kref::kExact));
  }
}

TEST(Logical, MixedDtypeOperandsGiveBool) {
  Tensor out = kiln::logical_and(kiln::tensor({0.5f, 0.0f}), kiln::tensor({3, 3}, kiln::kInt32));
  EXPECT_EQ(out.dtype(), kiln::kBool);
  EXPECT_TRUE(kref::equals(out, {2}, {1, 0}));
}

TEST(Where, PicksElementsWithBroadcasting) {
  Tensor cond = kiln::tensor({true, false, true}).reshape({1, 3});
  Tensor a = kiln::arange(6, kiln::kFloat32).reshape({2, 3});
  Tensor b = kiln::full({2, 1}, -1.0);
  Tensor out = kiln::where(cond, a, b);
  EXPECT_EQ(out.dtype(), kiln::kFloat32);
  EXPECT_TRUE(kref::equals(out, {2, 3}, {0, -1, 2, 3, -1, 5}));
}

TEST(Where, ScalarOverloads) {
  Tensor cond = kiln::tensor({true, false});
  Tensor x = kiln::tensor({10.0f, 20.0f});
  EXPECT_TRUE(kref::equals(kiln::where(cond, x, 0.5), {2}, {10, 0.5}));
  EXPECT_TRUE(kref::equals(kiln::where(cond, 0.5, x), {2}, {0.5, 20}));
  Tensor both = kiln::where(cond, 1.5, 2.5);
  EXPECT_TRUE(kref::equals(both, {2}, {1.5, 2.5}));
  EXPECT_EQ(both.dtype(), kiln::kFloat32);
  Tensor ints = kiln::where(cond, 1, 2);
  EXPECT_EQ(ints.dtype(), kiln::kInt64);
  EXPECT_TRUE(kref::equals(ints, {2}, {1, 2}));
}

TEST(Where, PromotesValueDtypes) {
  Tensor cond = kiln::tensor({true, false});
  Tensor i = kiln::tensor({1, 2}, kiln::kInt32), f = kiln::tensor({0.5f, 0.25f});
  EXPECT_EQ(kiln::where(cond, i, f).dtype(), kiln::kFloat32);
  EXPECT_TRUE(kref::equals(kiln::where(cond, i, f), {2}, {1, 0.25}));
  EXPECT_EQ(kiln::where(cond, i, i.to(kiln::kInt64)).dtype(), kiln::kInt64);
  EXPECT_EQ(kiln::where(cond, i, 2.5).dtype(), kiln::kFloat32);
  EXPECT_EQ(kiln::where(cond, i, 7).dtype(), kiln::kInt32);
}

TEST(Where, NonContiguousConditionAndValues) {
  Tensor m = kiln::arange(9, kiln::kFloat64).reshape({3, 3});
  Tensor cond = (m > 3).t();        // cond[i][j] = m[j][i] > 3
  Tensor out = kiln::where(cond, m.t(), -m);
  Ref rm = Ref::iota({3, 3});
  Ref want = kref::zip(kref::transpose(rm, 0, 1), rm, [](double mt, double mv) { return mt > 3 ? mt : -mv; });
  EXPECT_TRUE(kref::close(out, want, kref::kExact));
}

class Clamp : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(Clamp, MinMaxAndBothMatchReference) {
  const kiln::ScalarType dt = GetParam();
  Ref a({2, 4}, {-5, -2, -1, 0, 1, 2, 3, 7});
  Tensor x = kref::make(a, dt);
  auto clip = [&](std::optional<double> lo, std::optional<double> hi) {
    return kref::map(a, [=](double v) {
      if (lo) v = std::max(v, *lo);
      if (hi) v = std::min(v, *hi);
      return v;
    });
  };
  EXPECT_TRUE(kref::close(x.clamp(-1, 2), clip(-1, 2), kref::kExact));
  EXPECT_TRUE(kref::close(kiln::clamp(x, 0), clip(0, std::nullopt), kref::kExact));
  EXPECT_TRUE(kref::close(x.clamp(std::nullopt, 1), clip(std::nullopt, 1), kref::kExact));
  EXPECT_TRUE(kref::close(x.t().clamp(-2, 3), kref::transpose(clip(-2, 3), 0, 1), kref::kExact));
  EXPECT_EQ(x.clamp(-1, 2).dtype(), dt);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Clamp, ::testing::Values(kiln::kFloat32, kiln::kFloat64, kiln::kInt32, kiln::kInt64),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

TEST(ClampFloat, FractionalBounds) {
  Tensor x = kiln::tensor({-1.0, 0.3, 0.7, 2.0}, kiln::kFloat64);
  EXPECT_TRUE(kref::equals(x.clamp(0.25, 0.5), {4}, {0.25, 0.3, 0.5, 0.5}));
}

}  // namespace

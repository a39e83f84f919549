// fmod, remainder (%) and floor_divide against loops over the C library,
// every sign combination, integer and floating dtypes; in-place forms;
// division by zero; node names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;

// Every sign combination of dividend and divisor, exact and inexact quotients.
const std::vector<double> kA = {7, -7, 7, -7, 6, -6, 0.5, -0.5, 5.25, -5.25, 0, 9};
const std::vector<double> kB = {3, 3, -3, -3, 3, -3, 2, 2, -1.5, 1.5, 4, 0.75};

std::vector<double> values(const Tensor& t) { return t.to(kiln::kFloat64).to_vector<double>(); }

double py_remainder(double a, double b) {  // the result takes the divisor's sign
  double m = std::fmod(a, b);
  return m != 0 && ((m < 0) != (b < 0)) ? m + b : m;
}

TEST(Division, FloatingDtypesMatchLoops) {
  for (kiln::ScalarType t : {kiln::kFloat32, kiln::kFloat64}) {
    Tensor a = kiln::tensor(kA, kiln::kFloat64).to(t), b = kiln::tensor(kB, kiln::kFloat64).to(t);
    std::vector<double> fm = values(a.fmod(b)), rm = values(a % b), fd = values(kiln::floor_divide(a, b));
    for (std::size_t i = 0; i < kA.size(); ++i) {
      EXPECT_EQ(fm[i], std::fmod(kA[i], kB[i])) << i;
      EXPECT_EQ(rm[i], py_remainder(kA[i], kB[i])) << i;
      EXPECT_EQ(fd[i], std::floor(kA[i] / kB[i])) << i;
    }
    EXPECT_EQ(a.fmod(b).dtype(), t);
    // Through transposed views: the same elements.
    Tensor at = a.reshape({3, 4}).t(), bt = b.reshape({3, 4}).t();
    EXPECT_EQ(values(at.remainder(bt).t().flatten()), rm);
    EXPECT_EQ(values(at.floor_divide(bt).t().flatten()), fd);
  }
}

TEST(Division, FloatDivisionByZeroGivesNanOrInfinity) {
  Tensor a = kiln::tensor({5.0, -5.0, 0.0});
  EXPECT_TRUE(std::isnan(values(a.fmod(0.0))[0]));
  EXPECT_TRUE(std::isnan(values(a.remainder(0.0))[1]));
  std::vector<double> fd = values(a.floor_divide(0.0));
  EXPECT_EQ(fd[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(fd[1], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(fd[2]));
  // An infinite divisor: floor division rounds the zero quotient toward -inf.
  EXPECT_EQ(values(kiln::tensor({5.0, -5.0}).floor_divide(std::numeric_limits<double>::infinity())),
            (std::vector<double>{0, -1}));
}

TEST(Division, IntegersMatchTruncatedAndFlooredDivision) {
  std::vector<std::int64_t> a = {7, -7, 7, -7, 6, -6, 0, 1};
  std::vector<std::int64_t> b = {3, 3, -3, -3, 3, -3, 5, -1};
  Tensor ta = kiln::tensor(a), tb = kiln::tensor(b);
  std::vector<std::int64_t> fm = ta.fmod(tb).to_vector<std::int64_t>();
  std::vector<std::int64_t> rm = (ta % tb).to_vector<std::int64_t>();
  std::vector<std::int64_t> fd = ta.floor_divide(tb).to_vector<std::int64_t>();
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::int64_t q = a[i] / b[i], r = a[i] % b[i];
    bool adjust = r != 0 && ((r < 0) != (b[i] < 0));
    EXPECT_EQ(fm[i], r) << i;
    EXPECT_EQ(rm[i], adjust ? r + b[i] : r) << i;
    EXPECT_EQ(fd[i], adjust ? q - 1 : q) << i;
  }
  EXPECT_EQ(ta.fmod(tb).dtype(), kiln::kInt64);
  // The most negative value by -1: remainder 0, quotient wraps as in LibTorch.
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  Tensor m = kiln::tensor(std::vector<std::int64_t>{kMin});
  EXPECT_EQ(m.fmod(-1).to_vector<std::int64_t>()[0], 0);
  EXPECT_EQ((m % -1).to_vector<std::int64_t>()[0], 0);
  EXPECT_EQ(m.floor_divide(-1).to_vector<std::int64_t>()[0], kMin);
  // Int32 stays Int32; an integer tensor by a float number promotes.
  Tensor i32 = kiln::tensor(a).to(kiln::kInt32);
  EXPECT_EQ((i32 % 3).dtype(), kiln::kInt32);
  EXPECT_EQ(i32.fmod(2.5).dtype(), kiln::kFloat32);
  EXPECT_EQ(values(i32.fmod(2.5))[0], std::fmod(7.0, 2.5));
}

TEST(Division, NumberDividendOfRemainder) {
  Tensor b = kiln::tensor({3.0, -3.0, 4.0});
  EXPECT_EQ(values(kiln::remainder(7.0, b)), (std::vector<double>{1, -2, 3}));
}

TEST(Division, IntegerDivisionByZeroThrowsAtTheCall) {
  Tensor a = kiln::tensor({4, 5});
  try {
    (void)a.fmod(0);
    FAIL() << "fmod by 0 did not throw";
  } catch (const kiln::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("ZeroDivisionError"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[2]"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)(a % 0), kiln::ValueError);
  EXPECT_THROW((void)a.floor_divide(kiln::tensor({1, 0})), kiln::ValueError);
  // A divisor that is still being computed is checked when the kernel runs.
  Tensor lazy = kiln::tensor({1, 1}) - 1;
  EXPECT_THROW((void)(a % lazy).to_vector<std::int64_t>(), kiln::ValueError);
  // A float divisor of zero is not an error (NaN), nor a nonzero integer one.
  EXPECT_NO_THROW((void)a.to(kiln::kFloat32).fmod(0));
  EXPECT_NO_THROW((void)a.fmod(kiln::tensor({3, -2})).to_vector<std::int64_t>());
}

TEST(Division, BoolPromotesWithAnIntegerAndIsRejectedAlone) {
  Tensor t = kiln::tensor({true, false});
  EXPECT_THROW((void)t.fmod(t), kiln::DtypeError);
  EXPECT_EQ((t % 2).to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 0}));
  // A false divisor is an integer zero.
  EXPECT_THROW((void)kiln::tensor({3, 4}).floor_divide(t), kiln::ValueError);
  EXPECT_EQ(kiln::tensor({3, 4}).floor_divide(kiln::tensor({true, true})).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{3, 4}));
}

TEST(Division, InPlaceForms) {
  Tensor x = kiln::tensor({7.0, -7.0, 5.5});
  Tensor v = x;
  x.remainder_(3);
  EXPECT_EQ(values(v), (std::vector<double>{1, 2, 2.5}));
  x.fmod_(kiln::tensor({0.75, 1.5, 2.0}));
  EXPECT_EQ(values(v), (std::vector<double>{0.25, 0.5, 0.5}));
  Tensor y = kiln::tensor({9, -9, 4});
  y.narrow(0, 0, 2).floor_divide_(2);
  EXPECT_EQ(y.to_vector<std::int64_t>(), (std::vector<std::int64_t>{4, -5, 4}));
}

TEST(Division, GradientNodesAreNamedAsLibTorchNamesThem) {
  Tensor x = kiln::tensor({5.5, -2.5}).requires_grad_();
  Tensor y = kiln::tensor({2.0, 2.0}).requires_grad_();
  EXPECT_EQ(x.fmod(2.0).grad_fn()->name(), "FmodBackward0");
  EXPECT_EQ(x.fmod(y).grad_fn()->name(), "FmodBackward1");
  EXPECT_EQ((x % 2.0).grad_fn()->name(), "RemainderBackward0");
  EXPECT_EQ((x % y).grad_fn()->name(), "RemainderBackward1");
  EXPECT_EQ(kiln::remainder(3.0, y).grad_fn()->name(), "RemainderBackward1");
  // floor_divide has no gradient: its result does not require one.
  EXPECT_FALSE(x.floor_divide(y).requires_grad());
  // d(x % y)/dy = -floor(x / y).
  (x % y).sum().backward();
  EXPECT_EQ(values(y.grad()), (std::vector<double>{-2, 2}));
  EXPECT_EQ(values(x.grad()), (std::vector<double>{1, 1}));
}

}  // namespace

// Unary elementwise ops against kref: every op, every dtype it supports,
// contiguous and non-contiguous inputs, zero-size inputs.
// Tolerances: float32 results rel 1e-5 / abs 1e-6 against a float64
// reference; float64 rel/abs 1e-12; integer results exact.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;
using kref::Ref;

struct UnaryCase {
  std::string name;
  std::function<Tensor(const Tensor&)> op;
  std::function<double(double)> ref;
  double lo, hi;  // input domain
};

double gelu_erf(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}
double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

std::vector<UnaryCase> float_cases() {
  return {
      {"neg", [](const Tensor& x) { return kiln::neg(x); }, [](double x) { return -x; }, -3, 3},
      {"operator-", [](const Tensor& x) { return -x; }, [](double x) { return -x; }, -3, 3},
      {"abs", [](const Tensor& x) { return x.abs(); }, [](double x) { return std::abs(x); }, -3, 3},
      {"exp", [](const Tensor& x) { return kiln::exp(x); }, [](double x) { return std::exp(x); }, -5, 5},
      {"log", [](const Tensor& x) { return x.log(); }, [](double x) { return std::log(x); }, 0.01, 50},
      {"log1p", [](const Tensor& x) { return kiln::log1p(x); }, [](double x) { return std::log1p(x); }, -0.9, 9},
      {"sqrt", [](const Tensor& x) { return x.sqrt(); }, [](double x) { return std::sqrt(x); }, 0, 100},
      {"rsqrt", [](const Tensor& x) { return kiln::rsqrt(x); }, [](double x) { return 1 / std::sqrt(x); }, 0.01, 100},
      {"reciprocal", [](const Tensor& x) { return x.reciprocal(); }, [](double x) { return 1 / x; }, 0.01, 100},
      {"sin", [](const Tensor& x) { return x.sin(); }, [](double x) { return std::sin(x); }, -6, 6},
      {"cos", [](const Tensor& x) { return kiln::cos(x); }, [](double x) { return std::cos(x); }, -6, 6},
      {"tanh", [](const Tensor& x) { return x.tanh(); }, [](double x) { return std::tanh(x); }, -4, 4},
      {"sigmoid", [](const Tensor& x) { return kiln::sigmoid(x); }, sigmoid, -8, 8},
      {"relu", [](const Tensor& x) { return x.relu(); }, [](double x) { return x > 0 ? x : 0.0; }, -3, 3},
      {"nn::functional::relu", [](const Tensor& x) { return kiln::nn::functional::relu(x); },
       [](double x) { return x > 0 ? x : 0.0; }, -3, 3},
      {"gelu", [](const Tensor& x) { return kiln::gelu(x); }, gelu_erf, -4, 4},
      {"gelu_tanh", [](const Tensor& x) { return kiln::gelu(x, "tanh"); }, gelu_tanh, -4, 4},
      {"nn::functional::gelu", [](const Tensor& x) { return kiln::nn::functional::gelu(x); }, gelu_erf, -4, 4},
      {"silu", [](const Tensor& x) { return kiln::silu(x); }, [](double x) { return x * sigmoid(x); }, -6, 6},
  };
}

// 35 values spread over [lo, hi], shaped [5, 7].
Ref domain(double lo, double hi) {
  Ref r = Ref::filled({5, 7}, 0);
  for (std::int64_t i = 0; i < r.numel(); ++i) r.v[i] = lo + (hi - lo) * static_cast<double>(i) / (r.numel() - 1);
  return r;
}

class FloatUnary : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(FloatUnary, EveryOpMatchesReferenceOnContiguousInput) {
  const kiln::ScalarType dt = GetParam();
  for (const auto& c : float_cases()) {
    SCOPED_TRACE(c.name);
    Ref in = kref::cast(domain(c.lo, c.hi), dt);
    Tensor out = c.op(kref::make(in, dt));
    EXPECT_EQ(out.dtype(), dt);
    EXPECT_TRUE(kref::close(out, kref::map(in, c.ref), kref::tol_for(dt)));
  }
}

TEST_P(FloatUnary, EveryOpMatchesReferenceOnTransposedAndSteppedInput) {
  const kiln::ScalarType dt = GetParam();
  for (const auto& c : float_cases()) {
    SCOPED_TRACE(c.name);
    Ref in = kref::cast(domain(c.lo, c.hi), dt);
    Tensor x = kref::make(in, dt);
    Tensor xt = x.t();  // [7, 5], strides (1, 7)
    ASSERT_FALSE(xt.is_contiguous());
    EXPECT_TRUE(kref::close(c.op(xt), kref::map(kref::transpose(in, 0, 1), c.ref), kref::tol_for(dt)));
    Tensor stepped = x.slice(1, 1, 7, 3);  // columns 1 and 4
    EXPECT_TRUE(kref::close(c.op(stepped), kref::map(kref::slice(in, 1, 1, 7, 3), c.ref), kref::tol_for(dt)));
  }
}

TEST_P(FloatUnary, EveryOpOnZeroSizeInputGivesZeroSizeOutput) {
  const kiln::ScalarType dt = GetParam();
  for (const auto& c : float_cases()) {
    SCOPED_TRACE(c.name);
    Tensor out = c.op(kiln::zeros({0, 3}, dt));
    EXPECT_EQ(out.sizes().vec(), (std::vector<std::int64_t>{0, 3}));
    EXPECT_EQ(out.dtype(), dt);
    EXPECT_TRUE(out.to_vector<double>().empty());
  }
}

TEST_P(FloatUnary, EveryOpOnZeroDimInputStaysZeroDim) {
  const kiln::ScalarType dt = GetParam();
  for (const auto& c : float_cases()) {
    SCOPED_TRACE(c.name);
    double x = c.lo + 0.37 * (c.hi - c.lo);
    Tensor out = c.op(kiln::scalar_tensor(x, dt));
    EXPECT_EQ(out.dim(), 0);
    EXPECT_TRUE(kref::near(out.item<double>(), c.ref(kref::cast(x, dt)), kref::tol_for(dt)));
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, FloatUnary, ::testing::Values(kiln::kFloat32, kiln::kFloat64),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

class IntegralUnary : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(IntegralUnary, NegAbsReluKeepTheIntegerDtypeAndAreExact) {
  const kiln::ScalarType dt = GetParam();
  Ref in({2, 3}, {-3, -1, 0, 1, 2, 7});
  Tensor x = kref::make(in, dt);
  Tensor n = x.neg(), a = x.abs(), r = x.relu();
  EXPECT_EQ(n.dtype(), dt);
  EXPECT_EQ(a.dtype(), dt);
  EXPECT_EQ(r.dtype(), dt);
  EXPECT_TRUE(kref::equals(n, {2, 3}, {3, 1, 0, -1, -2, -7}));
  EXPECT_TRUE(kref::equals(a, {2, 3}, {3, 1, 0, 1, 2, 7}));
  EXPECT_TRUE(kref::equals(r, {2, 3}, {0, 0, 0, 1, 2, 7}));
  EXPECT_TRUE(kref::equals(x.t().neg(), {3, 2}, {3, -1, 1, -2, 0, -7}));
}

TEST_P(IntegralUnary, FloatingOpsOfIntegersGiveFloat32) {
  const kiln::ScalarType dt = GetParam();
  Ref in({4}, {0, 1, 2, 9});
  Tensor x = kref::make(in, dt);
  struct Case {
    const char* name;
    Tensor out;
    double (*ref)(double);
  } cases[] = {
      {"exp", x.exp(), [](double v) { return std::exp(v); }},
      {"log1p", x.log1p(), [](double v) { return std::log1p(v); }},
      {"sqrt", x.sqrt(), [](double v) { return std::sqrt(v); }},
      {"sin", x.sin(), [](double v) { return std::sin(v); }},
      {"cos", x.cos(), [](double v) { return std::cos(v); }},
      {"tanh", x.tanh(), [](double v) { return std::tanh(v); }},
      {"sigmoid", x.sigmoid(), sigmoid},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.out.dtype(), kiln::kFloat32);
    EXPECT_TRUE(kref::close(c.out, kref::map(in, c.ref), kref::kFloatTol));
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, IntegralUnary, ::testing::Values(kiln::kInt32, kiln::kInt64),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

TEST(BoolUnary, ExpOfBoolIsFloat32) {
  Tensor b = kiln::tensor({true, false});
  Tensor e = b.exp();
  EXPECT_EQ(e.dtype(), kiln::kFloat32);
  EXPECT_TRUE(kref::close(e, Ref({2}, {std::exp(1.0), 1.0}), kref::kFloatTol));
}

TEST(BoolUnary, LogicalNotOfBoolFlips) {
  Tensor b = kiln::tensor({true, false, true});
  Tensor n = b.logical_not();
  EXPECT_EQ(n.dtype(), kiln::kBool);
  EXPECT_TRUE(kref::equals(n, {3}, {0, 1, 0}));
}

}  // namespace

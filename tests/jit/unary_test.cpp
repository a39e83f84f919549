// Unary elementwise kernels and copy against plain loops, every dtype each supports.
#include <cmath>
#include <numbers>

#include "tests/jit/op_checks.h"

namespace kiln::jit::testing {
namespace {

template <class T>
T wrap(std::int64_t v) { return static_cast<T>(v); }  // two's complement narrowing

TEST(UnaryKernels, NegAbsReluOnNumericTypes) {
  for_each_type<std::int32_t, std::int64_t, float, double>([]<class T>() {
    const auto xs = sample_values<T>();
    check_unary<T>(OpId::Neg, xs, [](T x) {
      if constexpr (std::is_integral_v<T>) return x == std::numeric_limits<T>::min() ? x : T(-x);
      else return T(-x);
    });
    check_unary<T>(OpId::Abs, xs, [](T x) {
      if constexpr (std::is_integral_v<T>) return x == std::numeric_limits<T>::min() ? x : T(x < 0 ? -x : x);
      else return T(std::fabs(x));
    });
    check_unary<T>(OpId::Relu, xs, [](T x) { return std::isnan(static_cast<double>(x)) ? x : x > 0 ? x : T(0); });
  });
}

TEST(UnaryKernels, FloatingMathMatchesDoubleReference) {
  for_each_type<float, double>([]<class T>() {
    std::vector<T> xs = sample_values<T>();
    auto in_double = [](auto f) { return [f](T x) { return static_cast<T>(f(static_cast<double>(x))); }; };
    check_unary<T>(OpId::Exp, xs, in_double([](double x) { return std::exp(x); }));
    check_unary<T>(OpId::Log, xs, in_double([](double x) { return std::log(x); }));
    check_unary<T>(OpId::Log1p, xs, in_double([](double x) { return std::log1p(x); }));
    check_unary<T>(OpId::Sqrt, xs, in_double([](double x) { return std::sqrt(x); }));
    check_unary<T>(OpId::Rsqrt, xs, in_double([](double x) { return 1 / std::sqrt(x); }));
    check_unary<T>(OpId::Sin, xs, in_double([](double x) { return std::sin(x); }));
    check_unary<T>(OpId::Cos, xs, in_double([](double x) { return std::cos(x); }));
    check_unary<T>(OpId::Tanh, xs, in_double([](double x) { return std::tanh(x); }));
    check_unary<T>(OpId::Erf, xs, in_double([](double x) { return std::erf(x); }));
    check_unary<T>(OpId::Floor, xs, in_double([](double x) { return std::floor(x); }));
    check_unary<T>(OpId::Ceil, xs, in_double([](double x) { return std::ceil(x); }));
    check_unary<T>(OpId::Round, xs, in_double([](double x) { return std::nearbyint(x); }));
    check_unary<T>(OpId::Trunc, xs, in_double([](double x) { return std::trunc(x); }));
    check_unary<T>(OpId::Sigmoid, xs, in_double([](double x) { return 1 / (1 + std::exp(-x)); }));
    check_unary<T>(OpId::Gelu, xs, in_double([](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }));
    const double k = std::sqrt(2 / std::numbers::pi);
    check_unary<T>(OpId::Gelu, xs,
                   in_double([k](double x) { return 0.5 * x * (1 + std::tanh(k * (x + 0.044715 * x * x * x))); }), 1);
  });
}

TEST(UnaryKernels, LogicalNotOnEveryType) {
  for_each_type<bool, std::int32_t, std::int64_t, float, double>([]<class T>() {
    check_unary<bool>(OpId::LogicalNot, sample_values<T>(), [](T x) { return !(x != T(0)); });
  });
}

TEST(CopyKernel, ConvertsBetweenEveryPairOfTypes) {
  for_each_type<bool, std::int32_t, std::int64_t, float, double>([]<class From>() {
    std::vector<From> xs;
    for (From x : sample_values<From>())  // values every target type can hold
      if (std::isfinite(static_cast<double>(x)) && std::abs(static_cast<double>(x)) < 1e6) xs.push_back(x);
    for_each_type<bool, std::int32_t, std::int64_t, float, double>([&]<class To>() {
      check_unary<To>(OpId::Copy, xs, [](From x) {
        if constexpr (std::is_same_v<To, bool>) return x != From(0);
        else return static_cast<To>(x);
      });
    });
  });
}

TEST(CopyKernel, Int64ToInt32Wraps) {
  check_unary<std::int32_t>(OpId::Copy, std::vector<std::int64_t>{(std::int64_t{1} << 32) + 5, -1},
                            [](std::int64_t x) { return wrap<std::int32_t>(x); });
}

}  // namespace
}  // namespace kiln::jit::testing

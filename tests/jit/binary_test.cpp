// Binary and ternary elementwise kernels against plain loops.
#include <cmath>
#include <limits>

#include <kiln/error.h>

#include "tests/jit/op_checks.h"

namespace kiln::jit::testing {
namespace {

// Two's complement reference arithmetic, done in a wider or unsigned type.
template <class T, class F>
T wrap_op(T a, T b, F f) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(f(static_cast<U>(a), static_cast<U>(b)));
}

template <class T>
T int_pow(T base, T e) {
  if (e < 0) return base == 1 ? 1 : base == -1 ? (e % 2 == 0 ? 1 : -1) : 0;
  T r = 1;
  for (T i = 0; i < e; ++i) r = wrap_op(r, base, [](auto x, auto y) { return x * y; });
  return r;
}

TEST(BinaryKernels, ArithmeticOnNumericTypes) {
  for_each_type<std::int32_t, std::int64_t, float, double>([]<class T>() {
    const auto v = sample_values<T>();
    if constexpr (std::is_integral_v<T>) {
      check_binary<T>(OpId::Add, v, v, [](T a, T b) { return wrap_op(a, b, [](auto x, auto y) { return x + y; }); });
      check_binary<T>(OpId::Sub, v, v, [](T a, T b) { return wrap_op(a, b, [](auto x, auto y) { return x - y; }); });
      check_binary<T>(OpId::Mul, v, v, [](T a, T b) { return wrap_op(a, b, [](auto x, auto y) { return x * y; }); });
      const std::vector<T> bases = {0, 1, -1, 2, -3, 7}, exponents = {0, 1, 2, 3, 5, 13, -1, -2};
      check_binary<T>(OpId::Pow, bases, exponents, [](T a, T b) { return int_pow(a, b); });
      // C's % truncates; remainder takes the divisor's sign. x % -1 is 0, INT_MIN included.
      const std::vector<T> dividends = {0, 7, -7, 6, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()},
                           divisors = {1, -1, 3, -3, 7, std::numeric_limits<T>::min()};
      auto c_mod = [](T a, T b) { return b == -1 ? T(0) : T(a % b); };
      check_binary<T>(OpId::Fmod, dividends, divisors, c_mod);
      check_binary<T>(OpId::Remainder, dividends, divisors, [&](T a, T b) {
        T mod = c_mod(a, b);
        return mod != 0 && (b < 0) != (mod < 0) ? T(mod + b) : mod;
      });
      check_binary<T>(OpId::FloorDivide, dividends, divisors, [](T a, T b) {
        if (b == -1) return wrap_op(T(0), a, [](auto x, auto y) { return x - y; });
        const T q = T(a / b), r = T(a % b);
        return r != 0 && (r < 0) != (b < 0) ? T(q - 1) : q;
      });
    } else {
      check_binary<T>(OpId::Add, v, v, [](T a, T b) { return T(a + b); });
      check_binary<T>(OpId::Sub, v, v, [](T a, T b) { return T(a - b); });
      check_binary<T>(OpId::Mul, v, v, [](T a, T b) { return T(a * b); });
      check_binary<T>(OpId::Div, v, v, [](T a, T b) { return T(a / b); });
      check_binary<T>(OpId::Pow, v, v, [](T a, T b) { return T(std::pow(a, b)); });
      check_binary<T>(OpId::Fmod, v, v, [](T a, T b) { return T(std::fmod(a, b)); });
      check_binary<T>(OpId::Remainder, v, v, [](T a, T b) {
        T mod = std::fmod(a, b);
        return mod != T(0) && (b < T(0)) != (mod < T(0)) ? T(mod + b) : mod;
      });
      // Floor of the exact quotient (long double holds every float and double
      // quotient's floor exactly enough for these samples); x / 0 as division.
      check_binary<T>(OpId::FloorDivide, v, v, [](T a, T b) {
        if (b == 0) return T(a / b);
        // An infinite dividend has no remainder to floor by: NaN, as in LibTorch and Python.
        if (std::isinf(a) || std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
        if (std::isinf(b)) return a == 0 || (a < 0) == (b < 0) ? std::copysign(T(0), a / b) : T(-1);
        const long double q = std::floor(static_cast<long double>(a) / static_cast<long double>(b));
        return q == 0 ? std::copysign(T(0), a / b) : static_cast<T>(q);
      });
    }
    auto is_nan = [](T x) { return std::isnan(static_cast<double>(x)); };
    check_binary<T>(OpId::Maximum, v, v, [&](T a, T b) { return is_nan(a) ? a : is_nan(b) ? b : std::max(a, b); });
    check_binary<T>(OpId::Minimum, v, v, [&](T a, T b) { return is_nan(a) ? a : is_nan(b) ? b : std::min(a, b); });
  });
}

TEST(BinaryKernels, IntegerDivisionsByZeroThrow) {
  for (OpId op : {OpId::Fmod, OpId::Remainder, OpId::FloorDivide}) {
    SegmentBuilder b;
    const auto x = b.input(std::vector<std::int64_t>{5, 6}), y = b.input(std::vector<std::int64_t>{2, 0});
    const auto z = b.value(16);
    b.node(op, kInt64, b.view(z, kInt64, contiguous({2})), {b.view(x, kInt64, contiguous({2})), b.view(y, kInt64, contiguous({2}))});
    EXPECT_THROW(b.run(), ValueError) << trace::name(op);
  }
}

TEST(BinaryKernels, BoolAddIsOrAndMulIsAnd) {
  const std::vector<bool> v = {false, true};
  check_binary<bool>(OpId::Add, v, v, [](bool a, bool b) { return a || b; });
  check_binary<bool>(OpId::Mul, v, v, [](bool a, bool b) { return a && b; });
  check_binary<bool>(OpId::Maximum, v, v, [](bool a, bool b) { return a || b; });
  check_binary<bool>(OpId::Minimum, v, v, [](bool a, bool b) { return a && b; });
}

TEST(BinaryKernels, ComparisonsAndLogicalOpsGiveBool) {
  for_each_type<bool, std::int32_t, std::int64_t, float, double>([]<class T>() {
    const auto v = sample_values<T>();
    check_binary<bool>(OpId::Eq, v, v, [](T a, T b) { return a == b; });
    check_binary<bool>(OpId::Ne, v, v, [](T a, T b) { return a != b; });
    check_binary<bool>(OpId::Lt, v, v, [](T a, T b) { return a < b; });
    check_binary<bool>(OpId::Le, v, v, [](T a, T b) { return a <= b; });
    check_binary<bool>(OpId::Gt, v, v, [](T a, T b) { return a > b; });
    check_binary<bool>(OpId::Ge, v, v, [](T a, T b) { return a >= b; });
    check_binary<bool>(OpId::LogicalAnd, v, v, [](T a, T b) { return a != T(0) && b != T(0); });
    check_binary<bool>(OpId::LogicalOr, v, v, [](T a, T b) { return a != T(0) || b != T(0); });
  });
}

TEST(TernaryKernels, WhereSelectsPerElementWithBroadcastCondition) {
  for_each_type<bool, std::int32_t, std::int64_t, float, double>([]<class T>() {
    const auto v = sample_values<T>();
    const std::int64_t n = static_cast<std::int64_t>(v.size());
    std::vector<T> other(v.rbegin(), v.rend());
    const std::vector<bool> cond = {true, false};  // one per row, broadcast along the row
    SegmentBuilder b;
    const auto c = b.input(cond), x = b.input(v), y = b.input(other);
    const auto z = b.value(static_cast<std::size_t>(2 * n) * sizeof(T));
    const ScalarType t = dtype_of<T>();
    b.node(OpId::Where, t, b.view(z, t, contiguous({2, n})),
           {b.view(c, kBool, strided({2, n}, {1, 0})), b.view(x, t, strided({2, n}, {0, 1})),
            b.view(y, t, strided({2, n}, {0, 1}))});
    b.run();
    const auto got = b.read<T>(z);
    for (std::int64_t j = 0; j < n; ++j) {
      EXPECT_TRUE(same_value<T>(got[j], v[j])) << j;
      EXPECT_TRUE(same_value<T>(got[n + j], other[j])) << j;
    }
  });
}

TEST(BinaryKernels, BatchOfTransposedMatricesGoesTileByTile) {
  constexpr std::int64_t planes = 3, rows = 37, cols = 130;  // not multiples of the tile
  std::vector<double> a(planes * rows * cols), bv(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<double>(i);
    bv[i] = 0.5 * static_cast<double>(i);
  }
  SegmentBuilder b;
  const auto x = b.input(a), y = b.input(bv);
  const auto z = b.value(a.size() * 8);
  // x seen as [planes, rows, cols] with its last two dims transposed (stored [planes, cols, rows]).
  b.node(OpId::Add, kFloat64, b.view(z, kFloat64, contiguous({planes, rows, cols})),
         {b.view(x, kFloat64, strided({planes, rows, cols}, {rows * cols, 1, rows})),
          b.view(y, kFloat64, contiguous({planes, rows, cols}))});
  b.run();
  const auto got = b.read<double>(z);
  for (std::int64_t p = 0; p < planes; ++p)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) {
        const std::int64_t i = (p * rows + r) * cols + c;
        ASSERT_EQ(got[i], a[p * rows * cols + c * rows + r] + bv[i]) << p << "," << r << "," << c;
      }
}

TEST(BinaryKernels, ScalarOperandIsConvertedToTheComputeType) {
  SegmentBuilder b;
  const auto x = b.input(std::vector<std::int32_t>{1, 2, 3, 4});
  const auto y = b.value(16);
  b.node(OpId::Mul, kInt32, b.view(y, kInt32, contiguous({4})),
         {b.view(x, kInt32, contiguous({4})), SegmentBuilder::scalar(Scalar(3), kInt64)});
  b.run();
  EXPECT_EQ(b.read<std::int32_t>(y), (std::vector<std::int32_t>{3, 6, 9, 12}));
}

}  // namespace
}  // namespace kiln::jit::testing

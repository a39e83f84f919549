// Tier 0's transcendental kernels with libmvec (jit/kernels/libmvec.h)
// against the same kernels with scalar libm: within libmvec's 4 ulp, at
// every length around the vector width (the padded last vector), the same
// result for a value wherever it sits, and the edge values as libm has them.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <kiln/settings.h>

#include "jit/kernels/libmvec.h"
#include "tests/jit/op_checks.h"

namespace kiln::jit::testing {
namespace {

using kernels::set_vector_math;
using kernels::vector_math_enabled;

struct MathCase {
  OpId op;
  std::int64_t attr;  // gelu: 1 = tanh form
  double lo, hi;      // where the inputs are drawn from
};
const MathCase kCases[] = {
    {OpId::Exp, 0, -90, 90},    {OpId::Log, 0, 1e-6, 1e6}, {OpId::Log1p, 0, -0.99, 100}, {OpId::Sin, 0, -50, 50},
    {OpId::Cos, 0, -50, 50},    {OpId::Tanh, 0, -12, 12},  {OpId::Erf, 0, -5, 5},        {OpId::Sigmoid, 0, -30, 30},
    {OpId::Gelu, 0, -8, 8},     {OpId::Gelu, 1, -8, 8},    {OpId::Pow, 0, 0.01, 20},
};

std::string describe(const MathCase& c) { return std::string(trace::name(c.op)) + (c.attr ? " (tanh)" : ""); }

/// Restores the process's choice when a test ends, whatever it set.
// Restores the vector-math switch, and keeps these runs on tier 0: with the
// JIT on, a kernel another test compiled for the same segment (found in the
// disk cache the suite shares) could run instead of the tier-0 kernels under
// test, and a value computed alone and in a run then differed in its last bit.
struct VectorMathGuard {
  VectorMathGuard() { kiln::jit::set_enabled(false); }
  ~VectorMathGuard() {
    set_vector_math(saved);
    kiln::jit::set_enabled(jit);
  }
  bool saved = vector_math_enabled();
  bool jit = kiln::jit::enabled();
};

// The op on xs (and, for pow, exponents ys), contiguous, on tier 0.
template <class T>
std::vector<T> run_op(const MathCase& c, const std::vector<T>& xs, const std::vector<T>& ys) {
  const std::int64_t n = static_cast<std::int64_t>(xs.size());
  const ScalarType t = dtype_of<T>();
  SegmentBuilder b;
  std::vector<trace::Operand> in = {b.view(b.input(xs), t, contiguous({n}))};
  if (c.op == OpId::Pow) in.push_back(b.view(b.input(ys), t, contiguous({n})));
  const auto y = b.value(static_cast<std::size_t>(n) * sizeof(T));
  b.node(c.op, t, b.view(y, t, contiguous({n})), in, c.attr);
  b.run();
  return b.read<T>(y);
}

template <class T>
std::vector<T> draw(std::int64_t n, double lo, double hi, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (T& x : v) x = static_cast<T>(u(rng));
  return v;
}

bool vector_isa_present() {
  const VectorMathGuard guard;
  set_vector_math(true);
  return vector_math_enabled();
}

TEST(VectorMath, TurnsOffAndOn) {
  const VectorMathGuard guard;
  set_vector_math(false);
  EXPECT_FALSE(vector_math_enabled());
  set_vector_math(true);
  EXPECT_EQ(vector_math_enabled(), __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
}

// libmvec is within 4 ulp of the true result, libm within 1: 8 ulp of the
// larger of the result and x (GELU's 1 + tanh cancels to a difference of
// x-sized terms).
TEST(VectorMath, MatchesScalarLibmAtEveryLength) {
  if (!vector_isa_present()) GTEST_SKIP() << "no AVX2 and FMA: tier 0 keeps scalar libm";
  const VectorMathGuard guard;
  for_each_type<float, double>([]<class T>() {
    const double ulp = std::numeric_limits<T>::epsilon();
    for (const MathCase& c : kCases)
      for (std::int64_t n : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 255, 256, 257, 1000}) {
        const std::vector<T> xs = draw<T>(n, c.lo, c.hi, static_cast<std::uint32_t>(n));
        const std::vector<T> ys = draw<T>(n, -3, 3, static_cast<std::uint32_t>(n + 1));
        set_vector_math(false);
        const std::vector<T> scalar = run_op(c, xs, ys);
        set_vector_math(true);
        const std::vector<T> vector = run_op(c, xs, ys);
        for (std::int64_t i = 0; i < n; ++i) {
          const double want = scalar[i], got = vector[i], x = xs[i];
          EXPECT_TRUE(got == want || std::abs(got - want) <= 8 * ulp * std::max(std::abs(want), std::abs(x)))
              << describe(c) << "(" << x << ") in " << dtype_of<T>() << ", element " << i << " of " << n
              << ": libmvec " << got << ", libm " << want;
        }
      }
  });
}

TEST(VectorMath, ResultDoesNotDependOnPosition) {
  if (!vector_isa_present()) GTEST_SKIP() << "no AVX2 and FMA: tier 0 keeps scalar libm";
  const VectorMathGuard guard;
  set_vector_math(true);
  for_each_type<float, double>([]<class T>() {
    for (const MathCase& c : kCases) {
      const std::vector<T> xs = draw<T>(19, c.lo, c.hi, 7), ys = draw<T>(19, -3, 3, 8);
      const std::vector<T> whole = run_op(c, xs, ys);
      for (std::size_t i = 0; i < xs.size(); ++i) {
        const T alone = run_op(c, std::vector<T>{xs[i]}, std::vector<T>{ys[i]})[0];
        EXPECT_EQ(alone, whole[i]) << describe(c) << "(" << xs[i] << ") in " << dtype_of<T>() << " at position " << i;
      }
    }
  });
}

TEST(VectorMath, EdgeValuesAsLibm) {
  if (!vector_isa_present()) GTEST_SKIP() << "no AVX2 and FMA: tier 0 keeps scalar libm";
  const VectorMathGuard guard;
  set_vector_math(true);
  for_each_type<float, double>([]<class T>() {
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    const std::vector<T> xs = {inf, -inf, nan, T(0), T(-0.0), T(-1), T(1000), T(-1000)};
    const std::vector<T> ys(xs.size(), T(2));
    for (const MathCase& c : kCases) {
      const std::vector<T> got = run_op(c, xs, ys);
      set_vector_math(false);
      const std::vector<T> want = run_op(c, xs, ys);
      set_vector_math(true);
      for (std::size_t i = 0; i < xs.size(); ++i)
        EXPECT_TRUE(same_value<T>(got[i], want[i], 8 * std::numeric_limits<T>::epsilon()))
            << describe(c) << "(" << xs[i] << ") in " << dtype_of<T>() << ": libmvec " << got[i] << ", libm " << want[i];
    }
  });
}

}  // namespace
}  // namespace kiln::jit::testing

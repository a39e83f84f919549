// Unary elementwise kernels (copy, the cast, lives in copy.cpp).
#include <algorithm>
#include <cmath>
#include <numbers>

#include "jit/kernels/map_kernel.h"
#include "jit/kernels/wrapping.h"

namespace kiln::jit::kernels {
namespace fn {

struct Neg {
  template <class T>
  static T apply(T x) {
    if constexpr (std::is_integral_v<T>) return wrapping_neg(x);
    else return -x;
  }
};
struct Abs {
  template <class T>
  static T apply(T x) {
    if constexpr (std::is_integral_v<T>) return x < 0 ? wrapping_neg(x) : x;
    else return std::abs(x);
  }
};
struct Sqrt { template <class T> static T apply(T x) { return std::sqrt(x); } };
struct Rsqrt { template <class T> static T apply(T x) { return T(1) / std::sqrt(x); } };
struct Reciprocal { template <class T> static T apply(T x) { return T(1) / x; } };
struct Floor { template <class T> static T apply(T x) { return std::floor(x); } };
struct Ceil { template <class T> static T apply(T x) { return std::ceil(x); } };
struct Round { template <class T> static T apply(T x) { return std::nearbyint(x); } };  // default rounding: to even
struct Trunc { template <class T> static T apply(T x) { return std::trunc(x); } };
// `x < 0` is false for NaN, so NaN passes through as in LibTorch.
struct Relu { template <class T> static T apply(T x) { return x < T(0) ? T(0) : x; } };

template <MathFn F, class T>
T libm(T x) {
  if constexpr (F == MathFn::Exp) return std::exp(x);
  else if constexpr (F == MathFn::Log) return std::log(x);
  else if constexpr (F == MathFn::Log1p) return std::log1p(x);
  else if constexpr (F == MathFn::Sin) return std::sin(x);
  else if constexpr (F == MathFn::Cos) return std::cos(x);
  else if constexpr (F == MathFn::Tanh) return std::tanh(x);
  else return std::erf(x);
}

// The steps around the libm call of a composite op: f(x) = finish(x, F(pre(x))).
struct Plain {
  template <class T> static T pre(T x) { return x; }
  template <class T> static T finish(T, T y) { return y; }
};
struct SigmoidSteps {  // 1 / (1 + exp(-x))
  template <class T> static T pre(T x) { return -x; }
  template <class T> static T finish(T, T e) { return T(1) / (T(1) + e); }
};
struct GeluErfSteps {  // x/2 (1 + erf(x / sqrt 2))
  template <class T> static T pre(T x) { return x * T(std::numbers::sqrt2 / 2); }
  template <class T> static T finish(T x, T e) { return T(0.5) * x * (T(1) + e); }
};
struct GeluTanhSteps {  // x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  template <class T> static T pre(T x) {
    const T k = T(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);
    return k * (x + T(0.044715) * x * x * x);
  }
  template <class T> static T finish(T x, T t) { return T(0.5) * x * (T(1) + t); }
};

// An op around one libm function F: element by element with libm, whole
// runs with libmvec. A composite's runs go in blocks on the stack: pre over
// the block, F in place, finish. apply_array runs only where libmvec's AVX2
// forms do, so it is compiled for AVX2: the two loops vectorize 8 floats
// wide (at SSE width, sigmoid's took as long as its exp).
template <MathFn F, class Steps = Plain>
struct MathOp {
  template <class T>
  static T apply(T x) { return Steps::finish(x, libm<F>(Steps::pre(x))); }

  template <class T>
  [[gnu::target("avx2,fma")]] static void apply_array(T* out, std::int64_t n, const T* x) {
    if constexpr (std::is_same_v<Steps, Plain>) {
      vector_math(F, out, x, n);
    } else {
      constexpr std::int64_t kBlock = 256;
      T y[kBlock];
      for (std::int64_t b = 0; b < n; b += kBlock) {
        const std::int64_t m = std::min(kBlock, n - b);
        for (std::int64_t i = 0; i < m; ++i) y[i] = Steps::pre(x[b + i]);
        vector_math(F, y, y, m);
        for (std::int64_t i = 0; i < m; ++i) out[b + i] = Steps::finish(x[b + i], y[i]);
      }
    }
  }
};

using Exp = MathOp<MathFn::Exp>;
using Log = MathOp<MathFn::Log>;
using Log1p = MathOp<MathFn::Log1p>;
using Sin = MathOp<MathFn::Sin>;
using Cos = MathOp<MathFn::Cos>;
using Tanh = MathOp<MathFn::Tanh>;
using Erf = MathOp<MathFn::Erf>;
using Sigmoid = MathOp<MathFn::Exp, SigmoidSteps>;
using GeluErf = MathOp<MathFn::Erf, GeluErfSteps>;
using GeluTanh = MathOp<MathFn::Tanh, GeluTanhSteps>;
struct LogicalNot { template <class T> static bool apply(T x) { return x == T(0); } };

}  // namespace fn

void Neg(const KernelCall& c) { map_kernel<fn::Neg, kNumericTypes, 1>(c); }
void Abs(const KernelCall& c) { map_kernel<fn::Abs, kNumericTypes, 1>(c); }
void Exp(const KernelCall& c) { map_kernel<fn::Exp, kFloatTypes, 1>(c); }
void Log(const KernelCall& c) { map_kernel<fn::Log, kFloatTypes, 1>(c); }
void Log1p(const KernelCall& c) { map_kernel<fn::Log1p, kFloatTypes, 1>(c); }
void Sqrt(const KernelCall& c) { map_kernel<fn::Sqrt, kFloatTypes, 1>(c); }
void Rsqrt(const KernelCall& c) { map_kernel<fn::Rsqrt, kFloatTypes, 1>(c); }
void Reciprocal(const KernelCall& c) { map_kernel<fn::Reciprocal, kFloatTypes, 1>(c); }
void Sin(const KernelCall& c) { map_kernel<fn::Sin, kFloatTypes, 1>(c); }
void Cos(const KernelCall& c) { map_kernel<fn::Cos, kFloatTypes, 1>(c); }
void Tanh(const KernelCall& c) { map_kernel<fn::Tanh, kFloatTypes, 1>(c); }
void Erf(const KernelCall& c) { map_kernel<fn::Erf, kFloatTypes, 1>(c); }
void Floor(const KernelCall& c) { map_kernel<fn::Floor, kFloatTypes, 1>(c); }
void Ceil(const KernelCall& c) { map_kernel<fn::Ceil, kFloatTypes, 1>(c); }
void Round(const KernelCall& c) { map_kernel<fn::Round, kFloatTypes, 1>(c); }
void Trunc(const KernelCall& c) { map_kernel<fn::Trunc, kFloatTypes, 1>(c); }
void Sigmoid(const KernelCall& c) { map_kernel<fn::Sigmoid, kFloatTypes, 1>(c); }
void Relu(const KernelCall& c) { map_kernel<fn::Relu, kNumericTypes, 1>(c); }
void LogicalNot(const KernelCall& c) { map_kernel<fn::LogicalNot, kAllTypes, 1>(c); }

// attr i0 selects the formula: 0 = exact (erf), 1 = tanh approximation.
void Gelu(const KernelCall& c) {
  if (c.node->attrs.i[0] == 1) map_kernel<fn::GeluTanh, kFloatTypes, 1>(c);
  else map_kernel<fn::GeluErf, kFloatTypes, 1>(c);
}

}  // namespace kiln::jit::kernels

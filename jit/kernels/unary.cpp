// Unary elementwise kernels (copy, the cast, lives in copy.cpp).
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
struct Exp { template <class T> static T apply(T x) { return std::exp(x); } };
struct Log { template <class T> static T apply(T x) { return std::log(x); } };
struct Log1p { template <class T> static T apply(T x) { return std::log1p(x); } };
struct Sqrt { template <class T> static T apply(T x) { return std::sqrt(x); } };
struct Rsqrt { template <class T> static T apply(T x) { return T(1) / std::sqrt(x); } };
struct Sin { template <class T> static T apply(T x) { return std::sin(x); } };
struct Cos { template <class T> static T apply(T x) { return std::cos(x); } };
struct Tanh { template <class T> static T apply(T x) { return std::tanh(x); } };
struct Erf { template <class T> static T apply(T x) { return std::erf(x); } };
struct Floor { template <class T> static T apply(T x) { return std::floor(x); } };
struct Ceil { template <class T> static T apply(T x) { return std::ceil(x); } };
struct Round { template <class T> static T apply(T x) { return std::nearbyint(x); } };  // default rounding: to even
struct Trunc { template <class T> static T apply(T x) { return std::trunc(x); } };
struct Sigmoid { template <class T> static T apply(T x) { return T(1) / (T(1) + std::exp(-x)); } };
// `x < 0` is false for NaN, so NaN passes through as in LibTorch.
struct Relu { template <class T> static T apply(T x) { return x < T(0) ? T(0) : x; } };
struct GeluErf {
  template <class T>
  static T apply(T x) { return T(0.5) * x * (T(1) + std::erf(x * T(std::numbers::sqrt2 / 2))); }
};
struct GeluTanh {
  template <class T>
  static T apply(T x) {
    const T k = T(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);  // sqrt(2 / pi)
    return T(0.5) * x * (T(1) + std::tanh(k * (x + T(0.044715) * x * x * x)));
  }
};
struct LogicalNot { template <class T> static bool apply(T x) { return x == T(0); } };

}  // namespace fn

void Neg(const KernelCall& c) { map_kernel<fn::Neg, kNumericTypes, 1>(c); }
void Abs(const KernelCall& c) { map_kernel<fn::Abs, kNumericTypes, 1>(c); }
void Exp(const KernelCall& c) { map_kernel<fn::Exp, kFloatTypes, 1>(c); }
void Log(const KernelCall& c) { map_kernel<fn::Log, kFloatTypes, 1>(c); }
void Log1p(const KernelCall& c) { map_kernel<fn::Log1p, kFloatTypes, 1>(c); }
void Sqrt(const KernelCall& c) { map_kernel<fn::Sqrt, kFloatTypes, 1>(c); }
void Rsqrt(const KernelCall& c) { map_kernel<fn::Rsqrt, kFloatTypes, 1>(c); }
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

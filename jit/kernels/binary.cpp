// Arithmetic binary kernels. Integers wrap; on bool, add is `or` and mul is `and`.
#include <cmath>

#include <kiln/error.h>

#include "jit/kernels/map_kernel.h"
#include "jit/kernels/wrapping.h"

namespace kiln::jit::kernels {
namespace fn {

struct Add {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else if constexpr (std::is_integral_v<T>) return wrapping_add(a, b);
    else return a + b;
  }
};
struct Sub {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) return wrapping_sub(a, b);
    else return a - b;
  }
};
struct Mul {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else if constexpr (std::is_integral_v<T>) return wrapping_mul(a, b);
    else return a * b;
  }
};
struct Div { template <class T> static T apply(T a, T b) { return a / b; } };
// C's fmod: the dividend's sign. An integer divisor of 0 throws as
// LibTorch's ZeroDivisionError does; -1 gives 0 without the overflow of
// INT_MIN % -1.
struct Fmod {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(a, b);
    } else {
      if (b == 0) throw ValueError("ZeroDivisionError: integer fmod or remainder by zero");
      return b == -1 ? T(0) : T(a % b);
    }
  }
};
// LibTorch's remainder: fmod, moved to the divisor's sign when they differ.
struct Remainder {
  template <class T>
  static T apply(T a, T b) {
    T mod = Fmod::apply(a, b);
    return mod != T(0) && (b < T(0)) != (mod < T(0)) ? T(mod + b) : mod;
  }
};

// LibTorch's floor division: from the exact a - fmod(a, b) for floats (not
// floor(a / b), whose rounding can be a whole step off); truncation moved
// down a step when the signs differ and the division is inexact for integers.
struct FloorDivide {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (b == 0) return a / b;
      T mod = std::fmod(a, b);
      T div = (a - mod) / b;
      if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
      if (div == 0) return std::copysign(T(0), a / b);
      T floordiv = std::floor(div);
      return div - floordiv > T(0.5) ? floordiv + 1 : floordiv;
    } else {
      if (b == 0) throw ValueError("ZeroDivisionError: integer floor_divide by zero");
      if (b == -1) return wrapping_sub(T(0), a);
      T quot = T(a / b);
      return (a % b != 0 && (a < 0) != (b < 0)) ? T(quot - 1) : quot;
    }
  }
};

// Integer powers are exact (wrapping) by squaring. A negative exponent
// gives 1/base^|e| truncated: 1 for base 1, +-1 for base -1, else 0.
struct Pow {
  template <class T>
  static T apply(T base, T exponent) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(base, exponent);
    } else {
      if (exponent < 0) {
        if (base == 1) return 1;
        if (base == -1) return (exponent & 1) ? -1 : 1;
        return 0;
      }
      T result = 1;
      for (; exponent != 0; exponent >>= 1) {
        if (exponent & 1) result = wrapping_mul(result, base);
        base = wrapping_mul(base, base);
      }
      return result;
    }
  }
  template <class T>
    requires std::is_floating_point_v<T>
  static void apply_array(T* out, std::int64_t n, const T* base, const T* exponent) {
    vector_pow(out, base, exponent, n);
  }
};

// NaN wins (x != x only for NaN; the test folds away for integers).
struct Maximum {
  template <class T>
  static T apply(T a, T b) { return a != a ? a : b != b ? b : a > b ? a : b; }
};
struct Minimum {
  template <class T>
  static T apply(T a, T b) { return a != a ? a : b != b ? b : a < b ? a : b; }
};

}  // namespace fn

void Add(const KernelCall& c) { map_kernel<fn::Add, kAllTypes, 2>(c); }
void Sub(const KernelCall& c) { map_kernel<fn::Sub, kNumericTypes, 2>(c); }
void Mul(const KernelCall& c) { map_kernel<fn::Mul, kAllTypes, 2>(c); }
void Div(const KernelCall& c) { map_kernel<fn::Div, kFloatTypes, 2>(c); }
void Fmod(const KernelCall& c) { map_kernel<fn::Fmod, kNumericTypes, 2>(c); }
void Remainder(const KernelCall& c) { map_kernel<fn::Remainder, kNumericTypes, 2>(c); }
void FloorDivide(const KernelCall& c) { map_kernel<fn::FloorDivide, kNumericTypes, 2>(c); }
void Pow(const KernelCall& c) { map_kernel<fn::Pow, kNumericTypes, 2>(c); }
void Maximum(const KernelCall& c) { map_kernel<fn::Maximum, kAllTypes, 2>(c); }
void Minimum(const KernelCall& c) { map_kernel<fn::Minimum, kAllTypes, 2>(c); }

}  // namespace kiln::jit::kernels

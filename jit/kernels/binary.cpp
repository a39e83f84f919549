// Arithmetic binary kernels. Integers wrap; on bool, add is `or` and mul is `and`.
#include <cmath>

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
void Pow(const KernelCall& c) { map_kernel<fn::Pow, kNumericTypes, 2>(c); }
void Maximum(const KernelCall& c) { map_kernel<fn::Maximum, kAllTypes, 2>(c); }
void Minimum(const KernelCall& c) { map_kernel<fn::Minimum, kAllTypes, 2>(c); }

}  // namespace kiln::jit::kernels

// Two's-complement arithmetic on signed integers without undefined
// behaviour: integer tensors wrap on overflow, as LibTorch's do in practice,
// and UBSan runs on this code. The work is done in the unsigned type.
#pragma once

#include <type_traits>

namespace kiln::jit {

template <class T>
using Unsigned = std::make_unsigned_t<T>;

template <class T>
constexpr T wrapping_add(T a, T b) { return static_cast<T>(Unsigned<T>(a) + Unsigned<T>(b)); }
template <class T>
constexpr T wrapping_sub(T a, T b) { return static_cast<T>(Unsigned<T>(a) - Unsigned<T>(b)); }
template <class T>
constexpr T wrapping_mul(T a, T b) { return static_cast<T>(Unsigned<T>(a) * Unsigned<T>(b)); }
template <class T>
constexpr T wrapping_neg(T a) { return static_cast<T>(Unsigned<T>(0) - Unsigned<T>(a)); }

}  // namespace kiln::jit

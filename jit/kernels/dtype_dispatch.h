// Turning a run-time ScalarType into a C++ element type, for kernels that
// are templates over the type they compute in.
#pragma once

#include <cstdint>
#include <type_traits>

#include <kiln/dtype.h>
#include <kiln/error.h>

namespace kiln::jit {

/// A set of dtypes, one bit per ScalarType: the types a kernel is built for.
/// Dispatch instantiates a kernel only for the types in its set, so an op
/// that makes no sense for bool (exp, div) is never compiled for it.
using DtypeSet = unsigned;

constexpr DtypeSet dtype_bit(ScalarType t) { return 1u << static_cast<unsigned>(t); }

inline constexpr DtypeSet kFloatTypes = dtype_bit(kFloat32) | dtype_bit(kFloat64);
inline constexpr DtypeSet kIntegralTypes = dtype_bit(kInt32) | dtype_bit(kInt64);
inline constexpr DtypeSet kNumericTypes = kFloatTypes | kIntegralTypes;
inline constexpr DtypeSet kAllTypes = kNumericTypes | dtype_bit(kBool);

/// Calls `f.template operator()<T>()` with T the C++ type of `t`. A dtype
/// outside `Types` means the trace layer let through a combination its dtype
/// rules forbid: a kiln bug, reported as InternalError naming `op`.
template <DtypeSet Types, class F>
decltype(auto) visit_dtype(ScalarType t, const char* op, F&& f) {
#define KILN_DTYPE_CASE(T)                                                       \
  case dtype_of<T>():                                                            \
    if constexpr ((Types & dtype_bit(dtype_of<T>())) != 0) return f.template operator()<T>(); \
    break;
  switch (t) {
    KILN_DTYPE_CASE(bool)
    KILN_DTYPE_CASE(std::int32_t)
    KILN_DTYPE_CASE(std::int64_t)
    KILN_DTYPE_CASE(float)
    KILN_DTYPE_CASE(double)
  }
#undef KILN_DTYPE_CASE
  detail::check_failed(__FILE__, __LINE__, "dtype supported by the kernel",
                       detail::cat("[", op, "] has no kernel for dtype ", t));
}

/// Converts one element as a cast between tensors does: to bool is "nonzero".
template <class To, class From>
constexpr To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) return v != From(0);
  else return static_cast<To>(v);
}

}  // namespace kiln::jit

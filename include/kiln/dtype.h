// Element types of kiln tensors and LibTorch's type-promotion lattice.
//
// Names follow LibTorch (kFloat32 / kFloat, kInt64 / kLong, ...), so code
// ported from `torch::` keeps compiling. The order of the enumerators is the
// promotion order: every floating type is above every integral type, and
// bool is the lowest, so promoting two types is taking the larger one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <type_traits>

namespace kiln {

enum class ScalarType : std::uint8_t { Bool, Int32, Int64, Float32, Float64 };

/// Number of distinct ScalarType values (for tables indexed by dtype).
inline constexpr int kNumScalarTypes = 5;

inline constexpr ScalarType kBool = ScalarType::Bool;
inline constexpr ScalarType kInt32 = ScalarType::Int32;
inline constexpr ScalarType kInt = ScalarType::Int32;
inline constexpr ScalarType kInt64 = ScalarType::Int64;
inline constexpr ScalarType kLong = ScalarType::Int64;
inline constexpr ScalarType kFloat32 = ScalarType::Float32;
inline constexpr ScalarType kFloat = ScalarType::Float32;
inline constexpr ScalarType kFloat64 = ScalarType::Float64;
inline constexpr ScalarType kDouble = ScalarType::Float64;
// LibTorch's short names (torch/types.h).
inline constexpr ScalarType kI32 = kInt32;
inline constexpr ScalarType kI64 = kInt64;
inline constexpr ScalarType kF32 = kFloat32;
inline constexpr ScalarType kF64 = kFloat64;

/// The dtype a floating-point Python/C++ number becomes (LibTorch's default dtype).
inline constexpr ScalarType kDefaultFloat = ScalarType::Float32;

constexpr std::size_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return 1;
    case ScalarType::Int32: return 4;
    case ScalarType::Int64: return 8;
    case ScalarType::Float32: return 4;
    case ScalarType::Float64: return 8;
  }
  return 0;
}

constexpr bool is_floating_point(ScalarType t) {
  return t == ScalarType::Float32 || t == ScalarType::Float64;
}

/// Integral types; bool counts only when asked, as in LibTorch's isIntegralType.
constexpr bool is_integral(ScalarType t, bool include_bool) {
  return t == ScalarType::Int32 || t == ScalarType::Int64 || (include_bool && t == ScalarType::Bool);
}

/// LibTorch's promote_types for the dtypes kiln has: the higher of the two.
constexpr ScalarType promote_types(ScalarType a, ScalarType b) { return a > b ? a : b; }

/// LibTorch's spelling of a dtype in messages ("Float", "Long", ...).
constexpr const char* to_string(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "Bool";
    case ScalarType::Int32: return "Int";
    case ScalarType::Int64: return "Long";
    case ScalarType::Float32: return "Float";
    case ScalarType::Float64: return "Double";
  }
  return "?";
}

inline std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << to_string(t); }

/// The ScalarType of a C++ element type: dtype_of<float> == kFloat32.
template <class T>
constexpr ScalarType dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return ScalarType::Bool;
  else if constexpr (std::is_same_v<T, std::int32_t>) return ScalarType::Int32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return ScalarType::Int64;
  else if constexpr (std::is_same_v<T, float>) return ScalarType::Float32;
  else if constexpr (std::is_same_v<T, double>) return ScalarType::Float64;
  else static_assert(sizeof(T) == 0, "kiln: no ScalarType for this C++ type");
}

}  // namespace kiln

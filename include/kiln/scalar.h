// kiln::Scalar: a number passed to an op (`x * 0.5`, `full({2}, 3)`).
//
// Like LibTorch's c10::Scalar it remembers whether it was written as a
// bool, an integer or a floating-point number, because that decides type
// promotion: `int_tensor * 2` stays integral, `int_tensor * 2.0` becomes
// float32.
#pragma once

#include <cstdint>
#include <type_traits>

#include <kiln/dtype.h>

namespace kiln {

class Scalar {
 public:
  Scalar() : Scalar(std::int64_t{0}) {}
  Scalar(bool v) : kind_(ScalarType::Bool), i_(v), d_(v) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(ScalarType::Int64), i_(static_cast<std::int64_t>(v)), d_(static_cast<double>(v)) {}
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(ScalarType::Float64), i_(0), d_(static_cast<double>(v)) {}

  /// Bool, Int64 or Float64: the category the number was written in.
  ScalarType type() const { return kind_; }
  bool is_floating_point() const { return kind_ == ScalarType::Float64; }
  bool is_integral() const { return kind_ == ScalarType::Int64; }
  bool is_bool() const { return kind_ == ScalarType::Bool; }

  double to_double() const { return d_; }
  /// Integral value; a floating-point scalar is truncated toward zero.
  std::int64_t to_long() const { return kind_ == ScalarType::Float64 ? static_cast<std::int64_t>(d_) : i_; }
  bool to_bool() const { return kind_ == ScalarType::Float64 ? d_ != 0.0 : i_ != 0; }

  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) return to_bool();
    else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(d_);
    else return static_cast<T>(to_long());
  }

 private:
  ScalarType kind_;
  std::int64_t i_;
  double d_;
};

}  // namespace kiln

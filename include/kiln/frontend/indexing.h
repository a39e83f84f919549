// Python-style indexing, as LibTorch spells it in C++:
//
//   using namespace kiln::indexing;
//   x.index({Slice(), 0})                 // x[:, 0]
//   x.index({"...", None, Slice(1, None, 2)})   // x[..., None, 1::2]
//   x.index({mask})                       // x[mask], mask a bool tensor
//   x.index({rows, cols})                 // x[rows, cols], long tensors
//   x.index_put_({Slice(None, 2)}, 0.0)   // x[:2] = 0
//
// Integers, slices, None and Ellipsis give views (they share storage with
// x, and writes through them reach x); tensor indices copy, as in LibTorch.
// A bool tensor index reads the mask's values (a materialization point).
// Every result is built from differentiable ops, so gradients flow.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>

#include <kiln/array_ref.h>
#include <kiln/frontend/tensor.h>

namespace kiln::indexing {

/// `...`: as many full slices as the other indices leave dims.
struct EllipsisIndexType {};
inline constexpr EllipsisIndexType Ellipsis{};
/// `None`: a new dim of size 1.
inline constexpr std::nullopt_t None = std::nullopt;

/// start:stop:step with Python's defaults and clamping; step must be positive.
class Slice {
 public:
  Slice(std::optional<std::int64_t> start = std::nullopt, std::optional<std::int64_t> stop = std::nullopt,
        std::optional<std::int64_t> step = std::nullopt);
  std::optional<std::int64_t> start() const { return start_; }
  std::optional<std::int64_t> stop() const { return stop_; }
  std::int64_t step() const { return step_; }

 private:
  std::optional<std::int64_t> start_, stop_;
  std::int64_t step_;
};

/// One entry of an index list: None, Ellipsis (or "..."), an integer, a
/// bool, a Slice or a tensor (integer indices or a bool mask).
class TensorIndex {
 public:
  enum class Kind { None, Ellipsis, Integer, Boolean, Slice, Tensor };

  TensorIndex(std::nullopt_t) : kind_(Kind::None) {}
  TensorIndex(EllipsisIndexType) : kind_(Kind::Ellipsis) {}
  /// Only "..." is accepted (ValueError otherwise), as in LibTorch.
  TensorIndex(const char* ellipsis);
  template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
  TensorIndex(I integer) : kind_(Kind::Integer), integer_(static_cast<std::int64_t>(integer)) {}
  TensorIndex(bool boolean) : kind_(Kind::Boolean), boolean_(boolean) {}
  TensorIndex(Slice slice) : kind_(Kind::Slice), slice_(slice) {}
  TensorIndex(Tensor tensor) : kind_(Kind::Tensor), tensor_(std::move(tensor)) {}

  Kind kind() const { return kind_; }
  std::int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  std::int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  Tensor tensor_;
};

}  // namespace kiln::indexing

// Bridging Tensor handles and trace::TensorImpl inside the frontend.
#pragma once

#include <kiln/frontend/tensor.h>

#include "trace/record.h"
#include "trace/tensor_impl.h"

namespace kiln::frontend {

/// The implementation behind `t`; kiln::ValueError naming `op` if undefined.
const trace::TensorImpl& unwrap(const Tensor& t, const char* op);

inline Tensor wrap(trace::TensorRef r) { return Tensor(std::move(r)); }

/// LibTorch's alpha of add/sub: true when it changes nothing.
inline bool is_one(Scalar s) { return !s.is_bool() && s.to_double() == 1.0; }
/// `value * alpha`, staying integral when both are.
inline Scalar scaled(Scalar value, Scalar alpha) {
  if (is_one(alpha)) return value;
  if (!value.is_floating_point() && !alpha.is_floating_point()) return Scalar(value.to_long() * alpha.to_long());
  return Scalar(value.to_double() * alpha.to_double());
}

/// Elementwise op over tensors and numbers, as a Tensor (with its gradient
/// history when an operand requires grad).
Tensor apply(trace::OpId op, std::initializer_list<trace::Input> inputs, trace::Attrs attrs = {});
/// Reduction primitive over `dims` (empty: all), with history.
Tensor reduce(trace::OpId op, const Tensor& x, IntArrayRef dims, bool keepdim);
/// A contiguous copy converted to `dtype`, with history.
Tensor convert(const Tensor& x, ScalarType dtype);


}  // namespace kiln::frontend

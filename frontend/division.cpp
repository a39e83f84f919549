// fmod, remainder (the `%` operator) and floor_divide, as LibTorch's. An
// integer division by zero is checked when the op is recorded (trace/
// record_elementwise.cpp); floor_divide's result has no history, as its
// op has no gradient.
#include <kiln/frontend/functions.h>

#include "frontend/handle.h"

namespace kiln {

using frontend::apply;
using frontend::unwrap;
using trace::OpId;

#define KILN_DIVISION(method, op)                                                                      \
  Tensor Tensor::method(const Tensor& o) const {                                                       \
    return apply(OpId::op, {unwrap(*this, #method), unwrap(o, #method)});                              \
  }                                                                                                    \
  Tensor Tensor::method(Scalar o) const { return apply(OpId::op, {unwrap(*this, #method), o}); }       \
  Tensor method(const Tensor& a, const Tensor& b) { return a.method(b); }                              \
  Tensor method(const Tensor& a, Scalar b) { return a.method(b); }
KILN_DIVISION(fmod, Fmod)
KILN_DIVISION(remainder, Remainder)
KILN_DIVISION(floor_divide, FloorDivide)
#undef KILN_DIVISION

Tensor remainder(Scalar a, const Tensor& b) { return apply(OpId::Remainder, {a, unwrap(b, "remainder")}); }
Tensor operator%(const Tensor& a, const Tensor& b) { return a.remainder(b); }
Tensor operator%(const Tensor& a, Scalar b) { return a.remainder(b); }

}  // namespace kiln

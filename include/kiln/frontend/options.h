// TensorOptions: how creation functions are told the dtype, as in LibTorch:
// `kiln::zeros({2, 3}, kiln::TensorOptions().dtype(kiln::kInt64))` or simply
// `kiln::zeros({2, 3}, kiln::kInt64)`.
#pragma once

#include <kiln/dtype.h>

namespace kiln {

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType dtype) : dtype_(dtype) {}
  TensorOptions dtype(ScalarType t) const {
    TensorOptions o = *this;
    o.dtype_ = t;
    return o;
  }
  /// Gradients come with kiln's autograd; until then asking for them throws
  /// kiln::ValueError at the creation call rather than silently ignoring it.
  TensorOptions requires_grad(bool on) const {
    TensorOptions o = *this;
    o.requires_grad_ = on;
    return o;
  }
  ScalarType dtype() const { return dtype_; }
  bool requires_grad() const { return requires_grad_; }

 private:
  ScalarType dtype_ = kDefaultFloat;
  bool requires_grad_ = false;
};

inline TensorOptions dtype(ScalarType t) { return TensorOptions(t); }

}  // namespace kiln

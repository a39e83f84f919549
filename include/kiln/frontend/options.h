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
  /// The created tensor is a leaf that requires grad (kiln/autograd.h);
  /// floating-point dtypes only.
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

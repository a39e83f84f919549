// TensorOptions: how creation functions are told the dtype, as in LibTorch:
// `kiln::zeros({2, 3}, kiln::TensorOptions().dtype(kiln::kInt64))` or simply
// `kiln::zeros({2, 3}, kiln::kInt64)`.
#pragma once

#include <kiln/device.h>
#include <kiln/dtype.h>

namespace kiln {

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType dtype) : dtype_(dtype) {}
  TensorOptions(Device device) : device_(device) {}
  TensorOptions(DeviceType device) : device_(device) {}
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
  /// Where the tensor is created: the CPU (a CUDA device is a ValueError
  /// from the creation function, see kiln/device.h).
  TensorOptions device(Device d) const {
    TensorOptions o = *this;
    o.device_ = d;
    return o;
  }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return device_; }
  bool requires_grad() const { return requires_grad_; }

 private:
  ScalarType dtype_ = kDefaultFloat;
  Device device_ = kCPU;
  bool requires_grad_ = false;
};

inline TensorOptions dtype(ScalarType t) { return TensorOptions(t); }
inline TensorOptions device(Device d) { return TensorOptions(d); }

}  // namespace kiln

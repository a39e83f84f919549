// Reading values: each of these is a materialization point. Each marks its
// caller as the user's frame that cut the trace (profiler/call_site.h).
#include <cstring>

#include <kiln/error.h>
#include <kiln/frontend/tensor.h>

#include "frontend/handle.h"
#include "trace/strided_read.h"
#include "profiler/call_site.h"

namespace kiln {

using frontend::unwrap;
using profiler::CutReason;

template <class T>
T Tensor::item() const {
  profiler::CallerScope caller(__builtin_return_address(0));
  const auto& x = unwrap(*this, "item");
  if (x.geo.numel() != 1)
    throw ValueError(detail::cat("[item] a tensor with ", x.geo.numel(), " elements (shape ", x.geo.shape(),
                                 ") cannot be converted to a number"));
  trace::materialize(x, CutReason::Item, false);
  return trace::read_elements<T>(x)[0];
}

Scalar Tensor::item() const {
  switch (dtype()) {
    case ScalarType::Bool: return Scalar(item<bool>());
    case ScalarType::Int32:
    case ScalarType::Int64: return Scalar(item<std::int64_t>());
    default: return Scalar(item<double>());
  }
}

template <class T>
T* Tensor::data_ptr() const {
  profiler::CallerScope caller(__builtin_return_address(0));
  const auto& x = unwrap(*this, "data_ptr");
  if (dtype_of<T>() != x.dtype)
    throw DtypeError(detail::cat("[data_ptr] expected ", dtype_of<T>(), " for a tensor of dtype ", x.dtype));
  trace::materialize(x, CutReason::DataPtr, true);
  // The user may keep the pointer: the storage is never evicted again.
  x.storage->pin_forever();
  const trace::Storage::Pin pin(*x.storage);
  return static_cast<T*>(x.storage->data()) + x.geo.offset;
}

template <class T>
std::vector<T> Tensor::to_vector() const {
  profiler::CallerScope caller(__builtin_return_address(0));
  const auto& x = unwrap(*this, "to_vector");
  trace::materialize(x, CutReason::ToVector, false);
  return trace::read_elements<T>(x);
}

Tensor::operator bool() const {
  profiler::CallerScope caller(__builtin_return_address(0));
  const auto& x = unwrap(*this, "bool");
  if (x.geo.numel() != 1)
    throw ValueError(detail::cat("[bool] the truth value of a tensor with ", x.geo.numel(), " elements (shape ",
                                 x.geo.shape(), ") is ambiguous"));
  trace::materialize(x, CutReason::Bool, false);
  return trace::read_elements<bool>(x)[0];
}

#define KILN_READERS(T)                            \
  template T Tensor::item<T>() const;              \
  template T* Tensor::data_ptr<T>() const;         \
  template std::vector<T> Tensor::to_vector<T>() const;
KILN_READERS(bool)
KILN_READERS(std::int32_t)
KILN_READERS(std::int64_t)
KILN_READERS(float)
KILN_READERS(double)
#undef KILN_READERS

}  // namespace kiln

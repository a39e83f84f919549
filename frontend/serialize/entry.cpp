#include "frontend/serialize/entry.h"

#include <cstring>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>

namespace kiln::serialize::detail {

namespace {

// The first element of a contiguous tensor as raw bytes (data_ptr settles it).
void* raw_data(const Tensor& t) {
  switch (t.dtype()) {
    case ScalarType::Bool: return t.data_ptr<bool>();
    case ScalarType::Int32: return t.data_ptr<std::int32_t>();
    case ScalarType::Int64: return t.data_ptr<std::int64_t>();
    case ScalarType::Float32: return t.data_ptr<float>();
    case ScalarType::Float64: return t.data_ptr<double>();
  }
  KILN_CHECK(false, "unknown dtype");
}

}  // namespace

Entry entry_of(const Tensor& tensor) {
  if (!tensor.defined()) throw ValueError("[serialize] cannot save an undefined tensor");
  const Tensor values = tensor.contiguous();
  Entry e;
  e.dtype = values.dtype();
  e.sizes.assign(values.sizes().begin(), values.sizes().end());
  e.bytes.resize(static_cast<std::size_t>(values.numel()) * values.element_size());
  if (!e.bytes.empty()) std::memcpy(e.bytes.data(), raw_data(values), e.bytes.size());
  return e;
}

Tensor tensor_of(const Entry& entry) {
  Tensor t = empty(entry.sizes, TensorOptions(entry.dtype));
  if (!entry.bytes.empty()) std::memcpy(raw_data(t), entry.bytes.data(), entry.bytes.size());
  return t;
}

}  // namespace kiln::serialize::detail

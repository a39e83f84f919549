// Copying a (materialized) tensor's elements out in row-major order,
// converted to T: the one place that walks a geometry on the user's side.
#pragma once

#include <vector>

#include "trace/tensor_impl.h"

namespace kiln::trace {

template <class Src, class T>
void read_strided(const TensorImpl& x, std::vector<T>& out) {
  const Geometry& g = x.geo;
  const Storage::Pin pin(*x.storage);  // not evicted while it is read
  const Src* base = static_cast<const Src*>(x.storage->data()) + g.offset;
  std::int64_t n = g.numel();
  out.resize(static_cast<std::size_t>(n));
  std::int64_t index[kMaxDims] = {};
  std::int64_t pos = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>) out[i] = base[pos] != Src{};
    else out[i] = static_cast<T>(base[pos]);
    for (int d = g.ndim - 1; d >= 0; --d) {  // odometer step
      pos += g.strides[d];
      if (++index[d] < g.sizes[d]) break;
      pos -= g.strides[d] * g.sizes[d];
      index[d] = 0;
    }
  }
}

/// Whether `x`'s values can be read now without running anything: no trace
/// buffer still has to write its storage, and no failed segment poisoned
/// it. Checks at the call (integer division by zero, index bounds) read
/// such tensors; a pending one is checked by its kernel instead.
inline bool is_settled(const TensorImpl& x) {
  const Storage& s = *x.storage;
  return s.writer.load(std::memory_order_acquire) == nullptr && !s.failure();
}

template <class T>
std::vector<T> read_elements(const TensorImpl& x) {
  std::vector<T> out;
  if (x.geo.numel() == 0) return out;
  switch (x.dtype) {
    case ScalarType::Bool: read_strided<bool>(x, out); break;
    case ScalarType::Int32: read_strided<std::int32_t>(x, out); break;
    case ScalarType::Int64: read_strided<std::int64_t>(x, out); break;
    case ScalarType::Float32: read_strided<float>(x, out); break;
    case ScalarType::Float64: read_strided<double>(x, out); break;
  }
  return out;
}

}  // namespace kiln::trace

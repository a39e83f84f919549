// Tensors over data the user has: from_blob borrows it, tensor() copies it.
#include <algorithm>
#include <cstring>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>

#include "frontend/handle.h"
#include "trace/record_util.h"

namespace kiln {
namespace {

Tensor borrow(void* data, IntArrayRef sizes, const trace::Geometry& geo, std::function<void(void*)> deleter,
              const TensorOptions& options) {
  if (!data) throw ValueError(detail::cat("[from_blob] data pointer is null (sizes ", sizes, ")"));
  detail::check_device(options.device(), "from_blob");
  auto impl = std::make_shared<trace::TensorImpl>();
  impl->geo = geo;
  impl->dtype = options.dtype();
  std::size_t bytes = static_cast<std::size_t>(geo.extent()) * element_size(options.dtype());
  impl->storage = std::make_shared<trace::Storage>(data, bytes, std::move(deleter));
  Tensor t(std::move(impl));
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

// LibTorch's torch::tensor dtype: integers Long, floating Float, bool Bool.
template <class T>
ScalarType natural_dtype() {
  if constexpr (std::is_same_v<T, bool>) return ScalarType::Bool;
  else if constexpr (std::is_floating_point_v<T>) return kDefaultFloat;
  else return ScalarType::Int64;
}

template <class Dst, class T>
void store(void* dst, const T* src, std::size_t n) {
  Dst* out = static_cast<Dst*>(dst);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<Dst>(src[i]);
}

template <class T>
Tensor copy_values(const T* values, IntArrayRef shape, std::optional<TensorOptions> options) {
  if (options) detail::check_device(options->device(), "tensor");
  ScalarType dtype = options ? options->dtype() : natural_dtype<T>();
  trace::TensorRef out = trace::fresh_output(shape, dtype, "tensor");
  auto n = static_cast<std::size_t>(out->geo.numel());
  void* dst = out->storage->data();  // a new storage nobody else can see yet: written directly
  switch (dtype) {
    case ScalarType::Bool: store<bool>(dst, values, n); break;
    case ScalarType::Int32: store<std::int32_t>(dst, values, n); break;
    case ScalarType::Int64: store<std::int64_t>(dst, values, n); break;
    case ScalarType::Float32: store<float>(dst, values, n); break;
    case ScalarType::Float64: store<double>(dst, values, n); break;
  }
  Tensor t(std::move(out));
  if (options && options->requires_grad()) t.requires_grad_(true);
  return t;
}

template <class T>
Tensor copy_rows(std::initializer_list<std::initializer_list<T>> rows, std::optional<TensorOptions> options) {
  std::size_t cols = rows.size() ? rows.begin()->size() : 0;
  std::vector<T> flat;
  for (const auto& row : rows) {
    if (row.size() != cols)
      throw ShapeError(detail::cat("[tensor] rows have different lengths: ", cols, " and ", row.size()));
    flat.insert(flat.end(), row.begin(), row.end());
  }
  std::int64_t shape[2] = {static_cast<std::int64_t>(rows.size()), static_cast<std::int64_t>(cols)};
  return copy_values(flat.data(), {shape, 2}, options);
}

template <class T>
Tensor copy_list(const T* data, std::size_t n, std::optional<TensorOptions> options) {
  std::int64_t len = static_cast<std::int64_t>(n);
  return copy_values(data, len, options);
}

}  // namespace

Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options) {
  return borrow(data, sizes, trace::Geometry::contiguous(sizes, "from_blob"), nullptr, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter, TensorOptions options) {
  return borrow(data, sizes, trace::Geometry::contiguous(sizes, "from_blob"), std::move(deleter), options);
}

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options) {
  if (sizes.size() != strides.size())
    throw ShapeError(detail::cat("[from_blob] sizes ", sizes, " and strides ", strides, " differ in length"));
  trace::Geometry geo = trace::Geometry::contiguous(sizes, "from_blob");
  for (std::size_t d = 0; d < strides.size(); ++d) {
    if (strides[d] < 0) throw ValueError(detail::cat("[from_blob] negative stride in ", strides));
    geo.strides[d] = strides[d];
  }
  return borrow(data, sizes, geo, nullptr, options);
}

Tensor tensor(std::initializer_list<double> v, std::optional<TensorOptions> o) { return copy_list(v.begin(), v.size(), o); }
Tensor tensor(std::initializer_list<float> v, std::optional<TensorOptions> o) { return copy_list(v.begin(), v.size(), o); }
Tensor tensor(std::initializer_list<int> v, std::optional<TensorOptions> o) { return copy_list(v.begin(), v.size(), o); }
Tensor tensor(std::initializer_list<std::int64_t> v, std::optional<TensorOptions> o) {
  return copy_list(v.begin(), v.size(), o);
}
Tensor tensor(std::initializer_list<bool> v, std::optional<TensorOptions> o) { return copy_list(v.begin(), v.size(), o); }
Tensor tensor(double v, std::optional<TensorOptions> o) { return copy_list(&v, 1, o).reshape({}); }
Tensor tensor(float v, std::optional<TensorOptions> o) { return copy_list(&v, 1, o).reshape({}); }
Tensor tensor(int v, std::optional<TensorOptions> o) { return copy_list(&v, 1, o).reshape({}); }
Tensor tensor(std::int64_t v, std::optional<TensorOptions> o) { return copy_list(&v, 1, o).reshape({}); }
Tensor tensor(bool v, std::optional<TensorOptions> o) { return copy_list(&v, 1, o).reshape({}); }
Tensor tensor(std::initializer_list<std::initializer_list<double>> r, std::optional<TensorOptions> o) {
  return copy_rows(r, o);
}
Tensor tensor(std::initializer_list<std::initializer_list<float>> r, std::optional<TensorOptions> o) {
  return copy_rows(r, o);
}
Tensor tensor(std::initializer_list<std::initializer_list<int>> r, std::optional<TensorOptions> o) {
  return copy_rows(r, o);
}
Tensor tensor(const std::vector<double>& v, std::optional<TensorOptions> o) { return copy_list(v.data(), v.size(), o); }
Tensor tensor(const std::vector<float>& v, std::optional<TensorOptions> o) { return copy_list(v.data(), v.size(), o); }
Tensor tensor(const std::vector<std::int64_t>& v, std::optional<TensorOptions> o) {
  return copy_list(v.data(), v.size(), o);
}
Tensor tensor(const std::vector<int>& v, std::optional<TensorOptions> o) { return copy_list(v.data(), v.size(), o); }

Tensor scalar_tensor(Scalar value, std::optional<TensorOptions> options) { return full({}, value, options); }

}  // namespace kiln

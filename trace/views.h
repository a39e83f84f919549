// Views: new geometries over an existing storage. Nothing is recorded and
// nothing is copied; a write through a view is a write to the base storage,
// so aliasing is exact however the reads and writes are deferred.
// reshape/flatten copy only when no view can express the result (as LibTorch).
#pragma once

#include <cstdint>
#include <vector>

#include <kiln/array_ref.h>

#include "trace/tensor_impl.h"

namespace kiln::trace {

/// A tensor sharing `x`'s storage through geometry `g`.
TensorRef alias(const TensorImpl& x, const Geometry& g);

/// Resolves one -1 in `shape` against `numel`; ShapeError naming `op` otherwise.
std::vector<std::int64_t> infer_size(IntArrayRef shape, std::int64_t numel, const char* op);

TensorRef view(const TensorImpl& x, IntArrayRef shape);
TensorRef reshape(const TensorImpl& x, IntArrayRef shape);
TensorRef flatten(const TensorImpl& x, std::int64_t start_dim, std::int64_t end_dim);
TensorRef permute(const TensorImpl& x, IntArrayRef dims);
TensorRef transpose(const TensorImpl& x, std::int64_t dim0, std::int64_t dim1);
/// Matrix transpose: 0-D and 1-D tensors unchanged, 2-D swapped, more dims an error.
TensorRef t(const TensorImpl& x);
/// Broadcast view; -1 keeps a size; new dims are added in front.
TensorRef expand(const TensorImpl& x, IntArrayRef sizes);
TensorRef squeeze(const TensorImpl& x);
TensorRef squeeze(const TensorImpl& x, std::int64_t dim);
TensorRef unsqueeze(const TensorImpl& x, std::int64_t dim);
/// Python-style slice: start/end clamped to the dim, negative values wrap; step >= 1.
TensorRef slice(const TensorImpl& x, std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step);
/// Exact range [start, start + length): IndexError when it does not fit.
TensorRef narrow(const TensorImpl& x, std::int64_t dim, std::int64_t start, std::int64_t length);
/// Removes `dim`, keeping position `index` (negative wraps).
TensorRef select(const TensorImpl& x, std::int64_t dim, std::int64_t index);

}  // namespace kiln::trace

#include "trace/geometry.h"

#include <sstream>

#include <kiln/error.h>

namespace kiln::trace {

bool Geometry::is_contiguous() const {
  if (numel() == 0) return true;  // no element, no stride ever used (as LibTorch)
  std::int64_t expected = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;  // a size-1 dim's stride is never used
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

std::int64_t Geometry::extent() const {
  std::int64_t last = offset;
  for (int d = 0; d < ndim; ++d) {
    if (sizes[d] == 0) return 0;
    last += (sizes[d] - 1) * strides[d];
  }
  return last + 1;
}

bool Geometry::has_internal_overlap() const {
  if (numel() == 0) return false;
  for (int d = 0; d < ndim; ++d)
    if (sizes[d] > 1 && strides[d] == 0) return true;
  return false;
}

Geometry Geometry::contiguous(IntArrayRef shape, const char* op) {
  if (shape.size() > static_cast<std::size_t>(kMaxDims))
    throw ShapeError(detail::cat("[", op, "] shape ", shape, " has ", shape.size(),
                                 " dimensions; kiln supports at most ", kMaxDims));
  Geometry g;
  g.ndim = static_cast<std::int32_t>(shape.size());
  std::int64_t stride = 1;
  bool overflow = false, empty = false;
  for (int d = g.ndim - 1; d >= 0; --d) {
    if (shape[d] < 0)
      throw ShapeError(detail::cat("[", op, "] shape ", shape, ": negative size ", shape[d], " in dim ", d));
    g.sizes[d] = shape[d];
    g.strides[d] = stride;
    empty |= shape[d] == 0;
    if (shape[d] != 0 && __builtin_mul_overflow(stride, shape[d], &stride)) overflow = true;
  }
  // Overflow only matters when no dim is zero (an empty tensor has no elements).
  if (overflow && !empty)
    throw ShapeError(detail::cat("[", op, "] shape ", shape, ": number of elements overflows int64"));
  return g;
}

bool operator==(const Geometry& a, const Geometry& b) {
  if (a.ndim != b.ndim || a.offset != b.offset) return false;
  for (int d = 0; d < a.ndim; ++d)
    if (a.sizes[d] != b.sizes[d] || a.strides[d] != b.strides[d]) return false;
  return true;
}

std::string shape_str(IntArrayRef shape) {
  std::ostringstream os;
  os << shape;
  return os.str();
}

}  // namespace kiln::trace

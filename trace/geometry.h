// Geometry: how a tensor's elements sit in its storage (sizes, strides in
// elements, offset in elements). Views are new geometries over the same
// storage; no op is recorded for them.
#pragma once

#include <cstdint>
#include <string>

#include <kiln/array_ref.h>

namespace kiln::trace {

/// Most dimensions a tensor may have. Fixed so that geometries live inline
/// in trace nodes (recording an op allocates nothing for its shapes).
inline constexpr int kMaxDims = 8;

struct Geometry {
  std::int32_t ndim = 0;
  std::int64_t offset = 0;
  // Only the first `ndim` entries are meaningful; the rest are left
  // uninitialized on purpose, so that making a node does not clear ~1 KiB.
  std::int64_t sizes[kMaxDims];
  std::int64_t strides[kMaxDims];

  IntArrayRef shape() const { return {sizes, static_cast<std::size_t>(ndim)}; }
  IntArrayRef stride() const { return {strides, static_cast<std::size_t>(ndim)}; }
  std::int64_t numel() const {
    // A zero anywhere wins: [2^40, 2^40, 0] is empty, and its partial
    // products must not overflow on the way.
    std::uint64_t n = 1;
    for (int d = 0; d < ndim; ++d) {
      if (sizes[d] == 0) return 0;
      n *= static_cast<std::uint64_t>(sizes[d]);
    }
    return static_cast<std::int64_t>(n);
  }
  bool is_contiguous() const;
  /// Element offset (from the storage start) one past the furthest element; 0 if empty.
  std::int64_t extent() const;
  /// True when two elements of the view share one storage location (expanded dims).
  bool has_internal_overlap() const;

  /// A row-major contiguous geometry; throws ShapeError (naming `op`) for
  /// negative sizes, too many dims, or an element count overflowing int64.
  static Geometry contiguous(IntArrayRef shape, const char* op);
  friend bool operator==(const Geometry& a, const Geometry& b);
};

/// "[2, 3]" for messages.
std::string shape_str(IntArrayRef shape);

}  // namespace kiln::trace

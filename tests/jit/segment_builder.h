// Building trace segments by hand for the engine tests: storages, values,
// views and nodes, then reading results back in row-major order.
#pragma once

#include <cstring>
#include <memory>
#include <vector>

#include <kiln/dtype.h>
#include <kiln/scalar.h>

#include "jit/engine.h"
#include "trace/executor.h"
#include "trace/segment.h"

namespace kiln::jit::testing {

using trace::Geometry;
using trace::OpId;

inline Geometry contiguous(std::vector<std::int64_t> shape) { return Geometry::contiguous(shape, "test"); }

inline Geometry strided(std::vector<std::int64_t> sizes, std::vector<std::int64_t> strides, std::int64_t offset = 0) {
  Geometry g;
  g.ndim = static_cast<std::int32_t>(sizes.size());
  g.offset = offset;
  for (int d = 0; d < g.ndim; ++d) {
    g.sizes[d] = sizes[d];
    g.strides[d] = strides[d];
  }
  return g;
}

/// The transpose of a 2-D geometry (a view: same storage).
inline Geometry transposed(Geometry g) {
  std::swap(g.sizes[0], g.sizes[1]);
  std::swap(g.strides[0], g.strides[1]);
  return g;
}

struct SegmentBuilder {
  trace::Segment segment;
  // Hand-built segments get keys of their own, as recorded ones would.
  SegmentBuilder() {
    static std::uint64_t next_key = 0x5e9b0000;
    segment.key = ++next_key;
  }

  /// A value on a fresh, unallocated storage.
  std::uint32_t value(std::size_t bytes, bool produced = true, bool live = true) {
    segment.values.push_back({std::make_shared<trace::Storage>(bytes), produced, live});
    return static_cast<std::uint32_t>(segment.values.size() - 1);
  }
  /// An input of the segment (made before it, held by a handle) holding `data`.
  template <class T>
  std::uint32_t input(const std::vector<T>& data) {
    const std::uint32_t v = value(data.size() * sizeof(T), false, true);
    if (!data.empty()) std::memcpy(storage(v).data(), data.data(), data.size() * sizeof(T));
    return v;
  }
  /// std::vector<bool> is packed: store one byte (0 or 1) per element.
  std::uint32_t input(const std::vector<bool>& data) { return input(std::vector<std::uint8_t>(data.begin(), data.end())); }
  trace::Storage& storage(std::uint32_t v) { return *segment.values[v].storage; }

  static trace::Operand view(std::uint32_t value, ScalarType dtype, Geometry geo) {
    trace::Operand op;
    op.value = value;
    op.dtype = dtype;
    op.geo = geo;
    return op;
  }
  static trace::Operand scalar(Scalar s, ScalarType dtype) {
    trace::Operand op;
    op.dtype = dtype;
    op.scalar = s;
    return op;
  }

  trace::Node& node(OpId op, ScalarType dtype, trace::Operand out, std::vector<trace::Operand> in,
                    std::int64_t attr0 = 0, std::int64_t attr1 = 0) {
    trace::Node n;
    n.op = op;
    n.dtype = dtype;
    n.arity = static_cast<std::uint8_t>(in.size());
    n.attrs.i[0] = attr0;
    n.attrs.i[1] = attr1;
    for (std::size_t k = 0; k < in.size(); ++k) n.in[k] = in[k];
    n.out = out;
    segment.nodes.push_back(n);
    return segment.nodes.back();
  }

  /// Runs the segment; a node's failure is rethrown as its own exception,
  /// with the values it could not compute kept in `failed_values`.
  void run() {
    try {
      engine().run(segment);
    } catch (const kiln::trace::SegmentFailure& failure) {
      failed_values = failure.failed_values;
      std::rethrow_exception(failure.error);
    }
  }
  std::vector<std::uint32_t> failed_values;

  /// The elements of a view in row-major order.
  template <class T>
  std::vector<T> read(std::uint32_t v, const Geometry& geo) {
    std::vector<T> result;
    const T* base = static_cast<const T*>(storage(v).data()) + geo.offset;
    const std::int64_t n = geo.numel();
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t rest = i, offset = 0;
      for (int d = geo.ndim - 1; d >= 0; --d) {
        offset += (rest % geo.sizes[d]) * geo.strides[d];
        rest /= geo.sizes[d];
      }
      result.push_back(base[offset]);
    }
    return result;
  }
  template <class T>
  std::vector<T> read(std::uint32_t v) {
    return read<T>(v, contiguous({static_cast<std::int64_t>(storage(v).nbytes() / sizeof(T))}));
  }
};

/// Equal, treating NaN as equal to NaN and allowing `tolerance` relative error.
template <class T>
bool same_value(T actual, T expected, double tolerance = 0) {
  if constexpr (std::is_floating_point_v<T>) {
    if (actual != actual || expected != expected) return actual != actual && expected != expected;
    if (actual == expected) return true;
    const double scale = std::max(1.0, std::abs(static_cast<double>(expected)));
    return std::abs(static_cast<double>(actual) - static_cast<double>(expected)) <= tolerance * scale;
  } else {
    return actual == expected;
  }
}

}  // namespace kiln::jit::testing

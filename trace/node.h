// Node: one recorded op. Operands refer to a segment's values by index, so a
// node is position-independent and its encoding is the segment key's input.
#pragma once

#include <cstdint>
#include <limits>

#include <kiln/dtype.h>
#include <kiln/scalar.h>

#include "trace/geometry.h"
#include "trace/op.h"

namespace kiln::trace {

inline constexpr std::uint32_t kScalarOperand = std::numeric_limits<std::uint32_t>::max();
inline constexpr int kMaxArity = 3;

/// A tensor view of a segment value, or an immediate scalar.
struct Operand {
  std::uint32_t value = kScalarOperand;  // index into Segment::values
  ScalarType dtype = ScalarType::Float32;
  Geometry geo;   // for elementwise ops: already broadcast to the output's shape
  Scalar scalar;  // the immediate, when value == kScalarOperand

  bool is_scalar() const { return value == kScalarOperand; }
};

/// Op-specific integer attributes (meaning documented per op in ops.def).
struct Attrs {
  std::int64_t i[2] = {0, 0};
};

struct Node {
  OpId op{};
  ScalarType dtype = ScalarType::Float32;  // the type the op computes in
  std::uint8_t arity = 0;
  Attrs attrs;
  Operand in[kMaxArity];
  Operand out;  // the view written; for a fresh result, its whole contiguous storage
};

}  // namespace kiln::trace

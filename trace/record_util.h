// Helpers shared by the recording rules (trace/record*.cpp): fresh outputs,
// broadcasting, appending a node.
#pragma once

#include "trace/node.h"
#include "trace/tensor_impl.h"

namespace kiln::trace {

/// A pending tensor of `shape` and `dtype` over a new, unallocated storage.
TensorRef fresh_output(IntArrayRef shape, ScalarType dtype, const char* op);

/// `g` viewed with `shape` (its broadcast target): missing leading dims and
/// size-1 dims get stride 0. The shapes must be compatible.
Geometry broadcast_geometry(const Geometry& g, IntArrayRef shape);

/// Broadcasts `shape` into `out` (in place); ShapeError naming `op` when a
/// dim differs and neither is 1.
void broadcast_into(Geometry& out, IntArrayRef shape, const char* op);

/// Appends `node` to the calling thread's buffer. `ins[k]` is the tensor of
/// operand k (null for a scalar); `out` the storage the node writes.
void push(Node& node, const TensorImpl* const* ins, const std::shared_ptr<Storage>& out, bool fresh_out);

/// The operand reading `t` through `geo`.
Operand tensor_operand(const TensorImpl& t, const Geometry& geo);

/// Records op(x) with `attrs` into a fresh tensor of `shape` and `dtype`
/// (the node computes in x's dtype): the one-input ops that are neither
/// elementwise nor reductions (scans, windows).
TensorRef record_unary(OpId op, const TensorImpl& x, IntArrayRef shape, ScalarType dtype, const Attrs& attrs);

/// ValueError unless each element of `self` is a distinct memory location.
void check_writable(const TensorImpl& self, const char* op);

}  // namespace kiln::trace

// A node's operands resolved to memory for its reference kernel, keeping
// the promises listed in kernels/kernel.h. Where the trace hands over
// something a kernel must not see, the node is adjusted here, once for all
// kernels:
//   - an input whose storage overlaps the output's elements other than
//     element for element (a.add_(a.t()), or any overlap for a matmul,
//     reduction or index op) is copied to a temporary first, so results
//     equal "compute out of place, then write";
//   - an input of another dtype than the kernel reads is converted into a
//     temporary, and so is a scalar input (into a stride-0 tensor);
//   - an output of another dtype than the kernel writes (an in-place op
//     on a narrower tensor) is computed into a temporary of the compute
//     dtype and converted into place by finish().
// Temporaries come from the memory pool and are returned when the
// BoundNode dies, also when the kernel throws. With `pin` (once a memory
// budget was set: until then nothing is evicted), every storage the node
// touches is pinned for the BoundNode's lifetime (inputs first, so that
// allocating the output can evict anything but them), evicted inputs
// recomputed before any is pinned (trace::make_inputs_resident).
//
// An elementwise output may take the memory of an input that dies at the
// node (`dying`: no later node reads it, no handle holds it) when it has the
// output's dtype, layout and size: the node then runs in place, as `a.relu_()`
// would, and allocates nothing. A backward pass's gradients die this way at
// each step (where(y > 0, g, 0) of a ReLU), and a chain of elementwise ops
// needs one buffer instead of two.
#pragma once

#include <optional>
#include <vector>

#include "jit/kernels/kernel.h"
#include "jit/workspace.h"
#include "trace/segment.h"

namespace kiln::jit {

/// `operand` of `segment` in memory (allocating its storage if need be):
/// its data points at the view's first element, so geo.offset is 0.
kernels::TensorArg resolve(trace::Segment& segment, const trace::Operand& operand);

/// What `operand`'s bytes hold (kernels::ContentTag): unknown when they may
/// change behind kiln, or when a node of `segment` writes their storage --
/// its writes were counted before the segment began, so the count cannot
/// tell the bytes before such a node from those after it.
kernels::ContentTag content_of(const trace::Segment& segment, const trace::Operand& operand);

/// Whether the output `out` (on `heir`) can be written into the memory of
/// the input `in` (on `donor`), element for element: the same dtype and
/// layout, and `out` all of a storage of the donor's size.
bool may_take_memory_of(const trace::Operand& in, const trace::Storage& donor, const trace::Operand& out,
                        const trace::Storage& heir);

class BoundNode {
 public:
  /// `dying`: bit k set if input k dies at this node (jit/segment_plan.h).
  BoundNode(trace::Segment& segment, const trace::Node& node, bool pin, std::uint8_t dying = 0);
  BoundNode(const BoundNode&) = delete;  // the call may point into this object (scalars)
  BoundNode& operator=(const BoundNode&) = delete;

  const kernels::KernelCall& call() const { return call_; }
  /// After the kernel ran: moves a staged output into place.
  void finish();
  /// The input whose memory the output took; -1 if none.
  int reused_input() const { return reused_; }

 private:
  kernels::TensorArg stage(const kernels::TensorArg& source, ScalarType dtype);
  kernels::TensorArg scalar_input(int k, ScalarType dtype);
  int take_dying_input(trace::Segment& segment, const trace::Node& node, std::uint8_t dying);

  std::optional<trace::Storage::Pin> pins_[trace::kMaxArity + 1];
  kernels::KernelCall call_;
  kernels::TensorArg final_out_;
  bool output_staged_ = false;
  int reused_ = -1;
  std::vector<Workspace> temporaries_;
  alignas(8) unsigned char scalars_[trace::kMaxArity][8] = {};
};

}  // namespace kiln::jit

// The fusion partitioner: cuts a segment's needed nodes into groups that
// one compiled kernel can run, each described by a KernelSpec plus the
// bindings that locate its memory and scalars in any later run of a
// segment with the same key.
//
// A group is a run of consecutive needed nodes: elementwise ops over one
// shape, reductions of values of that shape over dims that include its
// last (all of them reducing the same dims), and elementwise ops at the
// reduced shape; the values it computes are read back with the layout they
// were written with (reduced values: broadcast along the reduced dims,
// with or without keepdim). Reductions over every dim make a partial
// kernel, whose results nothing in the group may read. Reductions that
// keep the last dim, matmul and indexing stay on tier 0.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "jit/fusion/kernel_spec.h"
#include "trace/segment.h"

namespace kiln::jit {

/// An operand slot of a node: in[0..2], or the output (-1).
struct OperandRef {
  std::uint32_t node = 0;
  std::int8_t operand = -1;
};

struct MatmulHead;  // jit/fusion/epilogue.h

/// A kernel of the autotuner's fused-kernel family whose runs the profiler
/// counts (profiler/tunables.h: what `kiln tune --from` tunes).
struct TunableKernel {
  std::string key;     // its tuning database key
  std::string target;  // the `kiln tune` target tuning that key, or ""
  const char* config;  // "heuristic" or "database": where its knobs came from
};

struct FusedGroup {
  std::vector<std::uint32_t> nodes;  // ascending indices into Segment::nodes
  KernelSpec spec;
  std::vector<OperandRef> inputs;    // per spec input: where its pointer comes from
  std::vector<OperandRef> outputs;   // per spec output
  std::vector<OperandRef> scalars;   // per spec scalar
  /// Pairs of views the plan assumed identical (same storage, same offset):
  /// offsets are not part of the segment key, so each run re-checks them.
  std::vector<std::pair<OperandRef, OperandRef>> same_view;
  /// Set when a matmul (nodes.front()) computes what the spec reads as its
  /// product input: the spec is then its epilogue.
  std::shared_ptr<const MatmulHead> matmul;
  /// With `matmul`: the needed nodes recorded between the matmul and the
  /// epilogue's first node (ascending), which depend on neither; the engine
  /// runs them (their own groups whole) before the matmul, so that the
  /// epilogue finds their values (epilogue.cpp).
  std::vector<std::uint32_t> run_first;
  /// Set (by the JIT, when it plans) for a tunable kernel worth reporting.
  std::shared_ptr<const TunableKernel> tunable;
  /// Set by the JIT when it plans (jit/tier1/dying_input.h), by index into
  /// `inputs` and `outputs`, -1 for none: an input that dies in the group
  /// and an output of its dtype and layout, which may take its memory.
  std::int32_t dying_input = -1, heir_output = -1;
};

/// Groups of at least `min_nodes` fusible nodes; `needed[i]` says whether
/// node i runs at all (dead nodes are skipped and never join a group).
std::vector<FusedGroup> partition(const trace::Segment& segment, const std::vector<bool>& needed,
                                  std::size_t min_nodes = 1);

/// The index in `groups` of each of `nodes` nodes' group, -1 for none.
std::vector<std::int32_t> group_of_nodes(const std::vector<FusedGroup>& groups, std::size_t nodes);

/// The operand named by `ref` in `segment`.
const trace::Operand& operand(const trace::Segment& segment, OperandRef ref);

/// True when every assumption of `group` holds for this run's offsets.
bool views_match(const trace::Segment& segment, const FusedGroup& group);

}  // namespace kiln::jit

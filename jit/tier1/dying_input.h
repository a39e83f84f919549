// A compiled group's output in the memory of an input that dies in the
// group, as a tier-0 node's (jit/bound_node.h). Only a group without
// reductions or a matmul qualifies: its kernel reads each input element
// once, at the position it writes, before any store of that element (every
// operand of the same layout is indexed alike), so writing over the input
// changes nothing it still reads.
#pragma once

#include <vector>

#include "jit/fusion/partition.h"
#include "trace/segment.h"

namespace kiln::jit {

/// Sets group.dying_input and group.heir_output to the first pair that
/// qualifies: an intermediate read by the group through one input alone,
/// which no other needed node reads or writes from the group's first node
/// on, and an output of the group (once, not read by it) that had the same
/// dtype and layout in `segment`. Each run checks the layout again
/// (may_take_memory_of): a plan serves every size of a shape family.
void find_dying_input(const trace::Segment& segment, const std::vector<bool>& needed, FusedGroup& group);

}  // namespace kiln::jit

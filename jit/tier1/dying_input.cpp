#include "jit/tier1/dying_input.h"

#include <algorithm>

#include "jit/segment_plan.h"

namespace kiln::jit {
namespace {

int references(const trace::Segment& segment, const std::vector<OperandRef>& refs, std::uint32_t value) {
  int n = 0;
  for (OperandRef ref : refs) n += operand(segment, ref).value == value;
  return n;
}

// Whether a needed node outside `group`, from its first node on, reads or writes `value`.
bool used_outside(const trace::Segment& segment, const std::vector<bool>& needed, const FusedGroup& group,
                  std::uint32_t value) {
  for (std::uint32_t i = group.nodes.front(); i < segment.nodes.size(); ++i) {
    if (!needed[i] || std::binary_search(group.nodes.begin(), group.nodes.end(), i)) continue;
    const trace::Node& node = segment.nodes[i];
    if (node.out.value == value) return true;
    for (int k = 0; k < node.arity; ++k)
      if (!node.in[k].is_scalar() && node.in[k].value == value) return true;
  }
  return false;
}

}  // namespace

void find_dying_input(const trace::Segment& segment, const std::vector<bool>& needed, FusedGroup& group) {
  if (group.matmul || group.spec.has_reduction()) return;
  for (std::size_t i = 0; i < group.inputs.size(); ++i) {
    const trace::Operand& in = operand(segment, group.inputs[i]);
    if (!is_intermediate(segment.values[in.value]) || references(segment, group.inputs, in.value) != 1 ||
        references(segment, group.outputs, in.value) != 0 || used_outside(segment, needed, group, in.value))
      continue;
    for (std::size_t o = 0; o < group.outputs.size(); ++o) {
      const trace::Operand& out = operand(segment, group.outputs[o]);
      if (out.dtype != in.dtype || !(out.geo == in.geo) || references(segment, group.outputs, out.value) != 1 ||
          references(segment, group.inputs, out.value) != 0)
        continue;
      group.dying_input = static_cast<std::int32_t>(i);
      group.heir_output = static_cast<std::int32_t>(o);
      return;
    }
  }
}

}  // namespace kiln::jit

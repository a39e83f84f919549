#include "jit/rematerialize.h"

#include "jit/bound_node.h"
#include "jit/kernels/kernel.h"

namespace kiln::jit {

// Tier 0 on purpose: a recipe is a node or a few, and compiling recipes would
// cost more than recomputing saves. The reference kernels are
// deterministic, so a value first made on tier 0 comes back bit for bit;
// one made by a fused tier-1 kernel comes back within tier 1's tolerance
// of it (the two tiers' differential tests bound that).
void rematerialize(trace::Storage& target, std::span<const trace::Node> nodes,
                   std::vector<std::shared_ptr<trace::Storage>>& inputs) {
  trace::Segment segment;
  segment.nodes.assign(nodes.begin(), nodes.end());
  segment.values.reserve(inputs.size() + 1);
  for (std::shared_ptr<trace::Storage>& input : inputs) segment.values.push_back({input, false, false});
  // Not owned here: the caller holds the target, pinned, until this returns.
  segment.values.push_back({std::shared_ptr<trace::Storage>(std::shared_ptr<void>(), &target), true, true});
  for (const trace::Node& node : segment.nodes) {
    BoundNode bound(segment, node, true);
    kernels::kernel_for(node.op)(bound.call());
    bound.finish();
  }
}

}  // namespace kiln::jit

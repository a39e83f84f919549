#include "jit/rematerialize.h"

#include "jit/bound_node.h"
#include "jit/kernels/kernel.h"

namespace kiln::jit {

// Tier 0 on purpose: a recipe is a node or a few, and compiling recipes would
// cost more than recomputing saves. Recipes are kept only for values made on
// tier 0 (trace::made_by_compiled_kernel), whose kernels are deterministic:
// a recomputed value comes back bit for bit.
void rematerialize(trace::Storage& target, const trace::Recipe& recipe,
                   std::vector<std::shared_ptr<trace::Storage>>& inputs) {
  trace::Segment segment;
  segment.nodes = recipe.nodes;
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

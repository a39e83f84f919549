#include "jit/rematerialize.h"

#include <algorithm>

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
  // The inputs of later nodes are made before the first node runs (whose
  // own inputs its BoundNode makes, before it takes the target's memory).
  // Made by the later node itself, an evicted input (the residual add after
  // a linear layer made in the target's memory) was recomputed with the
  // target's bytes taken and pinned; down a chain of such values (a
  // residual stream, each made from the one before) every level's target
  // was held at once.
  auto storage_of = [&](const trace::Operand& in) -> trace::Storage* {
    return in.is_scalar() || in.value >= inputs.size() ? nullptr : inputs[in.value].get();  // past them: the target
  };
  std::vector<trace::Storage*> first, read;
  for (int k = 0; k < nodes.front().arity; ++k) first.push_back(storage_of(nodes.front().in[k]));
  for (const trace::Node& node : nodes.subspan(1))
    for (int k = 0; k < node.arity; ++k)
      if (trace::Storage* input = storage_of(node.in[k]);
          input && std::ranges::find(first, input) == first.end() && std::ranges::find(read, input) == read.end())
        read.push_back(input);
  const std::vector<trace::Storage::Awaited> awaited = trace::make_inputs_resident(read);
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

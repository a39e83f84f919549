// What recomputing an evicted value runs (Storage::recomputation): its
// recipe's nodes, after those of the evicted producers that can be made in
// the value's own memory.
//
// A fused kernel's intermediates never reach memory (a linear layer's
// matmul and bias add, a layer norm's centred input): evicted from birth,
// each came back on tier 0 in memory of its own when a value made from it
// was recomputed, and went again right after; so did an input whose memory
// a tier-0 node took. In memory_bench's residual stack at half its peak
// (batch 4096, JIT) such dead [4096, 256] matmuls and adds were 164 of a
// run's 789 evictions (62 of 516 on tier 0), each allocation pushing out
// more. A producer that only this recomputation wants, read element for
// element by the node that makes the value whole, is made in the value's
// memory instead: its nodes first, then the node reading it runs in place
// (as tier 0 runs an elementwise node in the memory of an input that dies
// at it), and so on down a chain (relu of the add of a matmul: one buffer,
// not three). The same kernels run in the same order on the same
// elements, so the value comes back with the same bits (docs/DESIGN.md,
// "Producers made in the value's memory", has the numbers).
#include "trace/recipe.h"
#include "trace/segment.h"
#include "trace/storage.h"

namespace kiln::trace {
namespace {

// The value being recomputed, while its inputs are still being numbered.
constexpr std::uint32_t kSelf = kScalarOperand - 1;

// Whether `node` may read operand k from the memory it writes: element for
// element, as an elementwise op reads it.
bool reads_in_place(const Node& node, int k) {
  const OpKind kind = info(node.op).kind;
  if (kind != OpKind::Unary && kind != OpKind::Binary && kind != OpKind::Ternary) return false;
  return node.in[k].dtype == node.out.dtype && node.in[k].geo == node.out.geo;
}

// Renumbers a node's tensor operands: `to(value)`.
template <class F>
void renumber(Node& node, F&& to) {
  for (int k = 0; k < node.arity; ++k)
    if (!node.in[k].is_scalar()) node.in[k].value = to(node.in[k].value);
  node.out.value = to(node.out.value);
}

}  // namespace

std::vector<Node> Storage::recomputation(std::vector<std::shared_ptr<Storage>>& inputs,
                                         std::vector<const Storage*>& made_here) const {
  made_here.push_back(this);
  // Evicted, dead and recomputable, and no evicted value is made from it
  // but those made here.
  auto only_wanted_here = [&](const Storage& producer) {
    return producer.state_.load() == kEvicted && producer.dead_.load(std::memory_order_relaxed) &&
           producer.recipe_ && !producer.recipe_problem() && !producer.has_evicted_reader(false, made_here);
  };
  std::vector<Node> nodes = recipe_->nodes;
  const std::uint32_t own = static_cast<std::uint32_t>(recipe_->inputs.size());
  for (const Recipe::Input& in : recipe_->inputs) inputs.push_back(in.held.shared());  // evicted: all held
  for (Node& node : nodes) renumber(node, [&](std::uint32_t v) { return v == own ? kSelf : v; });
  while (writes_whole(nodes.front().out, *this)) {
    Node& head = nodes.front();
    int chosen = -1;
    for (int k = 0; k < head.arity && chosen < 0; ++k) {
      const std::uint32_t v = head.in[k].value;
      if (head.in[k].is_scalar() || v == kSelf || !reads_in_place(head, k)) continue;
      const Storage& producer = *inputs[v];
      if (producer.nbytes_ != nbytes_ || !only_wanted_here(producer)) continue;
      // Read by no other operand: once the value's memory is written, the
      // producer's bytes are gone. And the node's other operands resident:
      // this value's memory is taken when the producer's first node runs,
      // and one recomputed then would be made while it is held, where the
      // node would have made it before taking any (with that allowed,
      // training at 35% of its peak in the residency tests ran out of memory
      // in 7 of 30 runs; in none of 30 before or after).
      int reads = 0;
      for (const Node& node : nodes)
        for (int j = 0; j < node.arity; ++j) reads += !node.in[j].is_scalar() && node.in[j].value == v;
      bool others_resident = true;
      for (int j = 0; j < head.arity; ++j) {
        const std::uint32_t u = head.in[j].value;
        if (j != k && !head.in[j].is_scalar() && u != kSelf) others_resident &= inputs[u]->state_.load() == kResident;
      }
      if (reads == 1 && others_resident) chosen = k;
    }
    if (chosen < 0) break;
    const Storage& producer = *inputs[head.in[chosen].value];
    head.in[chosen].value = kSelf;
    made_here.push_back(&producer);
    const std::uint32_t first = static_cast<std::uint32_t>(inputs.size());
    const std::uint32_t producer_self = static_cast<std::uint32_t>(producer.recipe_->inputs.size());
    for (const Recipe::Input& in : producer.recipe_->inputs) inputs.push_back(in.held.shared());
    std::vector<Node> made = producer.recipe_->nodes;
    for (Node& node : made) renumber(node, [&](std::uint32_t v) { return v == producer_self ? kSelf : first + v; });
    nodes.insert(nodes.begin(), made.begin(), made.end());
  }
  const std::uint32_t self = static_cast<std::uint32_t>(inputs.size());
  for (Node& node : nodes) renumber(node, [&](std::uint32_t v) { return v == kSelf ? self : v; });
  return nodes;
}

}  // namespace kiln::trace

#include "jit/segment_plan.h"

#include <algorithm>

#include <kiln/error.h>

namespace kiln::jit {

SegmentPlan plan_segment(const trace::Segment& segment) {
  const auto& nodes = segment.nodes;
  const auto& values = segment.values;
  SegmentPlan plan;
  plan.needed.assign(nodes.size(), false);

  constexpr std::uint32_t kUnused = ~std::uint32_t{0};
  std::vector<bool> value_needed(values.size());
  std::vector<std::uint32_t> last_use(values.size(), kUnused);
  for (std::size_t v = 0; v < values.size(); ++v) value_needed[v] = values[v].live;

  for (std::size_t i = nodes.size(); i-- > 0;) {
    const trace::Node& node = nodes[i];
    KILN_CHECK(node.out.value < values.size(), "node ", i, " writes value ", node.out.value, " of ", values.size());
    if (!value_needed[node.out.value]) continue;
    plan.needed[i] = true;
    const auto index = static_cast<std::uint32_t>(i);
    if (last_use[node.out.value] == kUnused) last_use[node.out.value] = index;
    for (int k = 0; k < node.arity; ++k) {
      const trace::Operand& in = node.in[k];
      if (in.is_scalar()) continue;
      KILN_CHECK(in.value < values.size(), "node ", i, " reads value ", in.value, " of ", values.size());
      value_needed[in.value] = true;
      if (last_use[in.value] == kUnused) last_use[in.value] = index;
    }
  }

  for (std::uint32_t v = 0; v < values.size(); ++v)
    if (last_use[v] != kUnused && is_intermediate(values[v])) plan.releases.push_back({last_use[v], v});
  plan.dying.assign(nodes.size(), 0);
  for (std::uint32_t i = 0; i < nodes.size(); ++i)
    for (int k = 0; k < nodes[i].arity; ++k) {
      const trace::Operand& in = nodes[i].in[k];
      if (!in.is_scalar() && in.value != nodes[i].out.value && last_use[in.value] == i &&
          is_intermediate(values[in.value]))
        plan.dying[i] |= static_cast<std::uint8_t>(1u << k);
    }
  std::sort(plan.releases.begin(), plan.releases.end(),
            [](const SegmentPlan::Release& a, const SegmentPlan::Release& b) { return a.node < b.node; });
  plan.ops_run = static_cast<std::uint32_t>(std::count(plan.needed.begin(), plan.needed.end(), true));
  plan.ops_eliminated = static_cast<std::uint32_t>(nodes.size()) - plan.ops_run;
  return plan;
}

}  // namespace kiln::jit

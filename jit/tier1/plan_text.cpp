#include "jit/tier1/plan_text.h"

#include <sstream>

#include "jit/tier1/kernel_cache.h"
#include "profiler/json_out.h"

namespace kiln::jit {

profiler::KeyPlan describe_plan(const trace::Segment& segment, const SegmentJit& s) {
  profiler::KeyPlan plan;
  std::ostringstream out;
  out << "segment " << profiler::hex_key(segment.key) << ": " << segment.nodes.size() << " ops, "
      << s.groups.size() << " fused groups" << (s.dynamic ? " (sizes read at run time)" : "") << "\n";
  for (std::size_t i = 0; i < segment.nodes.size(); ++i) {
    const trace::Node& n = segment.nodes[i];
    out << "  op " << i << ": " << trace::name(n.op) << " " << to_string(n.dtype) << " [";
    for (int d = 0; d < n.out.geo.ndim; ++d) out << (d ? ", " : "") << n.out.geo.sizes[d];
    out << "]";
    std::int32_t g = i < s.group_of.size() ? s.group_of[i] : -1;
    if (g >= 0) out << "  group " << g;
    else out << "  tier 0";
    out << "\n";
  }
  for (std::size_t g = 0; g < s.kernels.size(); ++g) {
    plan.kernels.push_back(s.kernels[g]->key);
    out << "group " << g << ": kernel " << profiler::hex_key(s.kernels[g]->key) << "\n";
    if (const std::vector<std::uint32_t>& ahead = s.groups[g].run_first; !ahead.empty()) {
      out << "    (ops";
      for (std::uint32_t i : ahead) out << " " << i;
      out << " run before its matmul: they depend on neither)\n";
    }
    std::istringstream spec(s.kernels[g]->spec.to_string());
    for (std::string line; std::getline(spec, line);) out << "    " << line << "\n";
  }
  plan.text = out.str();
  return plan;
}

}  // namespace kiln::jit

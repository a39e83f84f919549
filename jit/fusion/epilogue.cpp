#include "jit/fusion/epilogue.h"

#include <algorithm>
#include <memory>

namespace kiln::jit {
namespace {

bool is_float_matmul(const trace::Node& node) {
  if (node.op != trace::OpId::MatMul || !is_floating_point(node.dtype)) return false;
  // Operands of another dtype are converted by tier 0 (bound_node.h); keep that path for them.
  return node.in[0].dtype == node.dtype && node.in[1].dtype == node.dtype && node.out.dtype == node.dtype;
}

bool same_strides(const KernelOperand& a, const KernelOperand& b, int ndim) {
  return a.dtype == b.dtype && std::equal(a.strides, a.strides + ndim, b.strides);
}

// Does a read of the product `written` through `read`, over the group's
// iteration `shape`, see element i of the iteration space at element i of
// the product? The same view does; so does a reshape of a row-major
// product read row-major (a convolution's [N, groups, O/groups, L] product
// read as [N, O, H, W]). Offsets are not in the key: views_match
// re-checks them per run.
bool reads_in_product_order(const trace::Geometry& read, const trace::Geometry& written, IntArrayRef shape) {
  if (!(read.shape() == shape)) return false;
  if (read.shape() == written.shape()) return read.stride() == written.stride();
  return read.numel() == written.numel() && read.is_contiguous() && written.is_contiguous();
}

// The head for `group` if `mm` can lead it, else nullptr.
std::shared_ptr<MatmulHead> head_for(const trace::Segment& segment, std::uint32_t mm, const FusedGroup& group,
                                     std::uint32_t last_touch_of_product) {
  const trace::Node& node = segment.nodes[mm];
  const std::uint32_t product = node.out.value;
  // The GEMM calls the kernel over element ranges of finished blocks: a
  // kernel that reduces ranges over rows or chunks instead.
  if (group.spec.has_reduction()) return nullptr;
  const IntArrayRef shape = segment.nodes[group.nodes.front()].out.geo.shape();
  auto head = std::make_shared<MatmulHead>();
  head->node = mm;
  int reads = 0;
  for (std::size_t k = 0; k < group.inputs.size(); ++k) {
    const trace::Operand& in = operand(segment, group.inputs[k]);
    if (in.value != product) continue;
    if (!reads_in_product_order(in.geo, node.out.geo, shape)) return nullptr;
    head->product_input = static_cast<std::int32_t>(k);
    ++reads;
  }
  if (reads != 1) return nullptr;
  head->store_product = segment.values[product].live || last_touch_of_product > group.nodes.back();
  const KernelSpec& spec = group.spec;
  for (std::size_t k = 0; k < spec.outputs.size() && !head->store_product; ++k) {
    if (same_strides(spec.outputs[k].mem, spec.inputs[head->product_input], spec.ndim)) {
      head->product_output = static_cast<std::int32_t>(k);
      break;
    }
  }
  return head;
}

// At most this many needed nodes between a matmul and the group that reads
// its product may run before the matmul (batch norm's per-channel factors
// in eval mode are two: rsqrt(running_var + eps)).
constexpr std::size_t kHoistLimit = 8;

bool reads_value(const trace::Node& node, std::uint32_t value) {
  for (int k = 0; k < node.arity; ++k)
    if (!node.in[k].is_scalar() && node.in[k].value == value) return true;
  return false;
}

// Can `between` (needed nodes after the matmul `mm`, ascending) run before
// it? None may be a matmul, read what the matmul writes, or write what it
// reads or writes (values are storages, so views alias through them), and
// each one's group must lie among them, to run whole.
bool can_run_before(const trace::Segment& segment, std::uint32_t mm, const std::vector<std::uint32_t>& between,
                    const std::vector<std::int32_t>& group_of, const std::vector<FusedGroup>& groups) {
  const trace::Node& matmul = segment.nodes[mm];
  for (std::uint32_t i : between) {
    const trace::Node& node = segment.nodes[i];
    if (node.op == trace::OpId::MatMul || reads_value(node, matmul.out.value)) return false;
    if (node.out.value == matmul.out.value || reads_value(matmul, node.out.value)) return false;
    if (const std::int32_t g = group_of[i]; g >= 0) {
      const std::vector<std::uint32_t>& nodes = groups[static_cast<std::size_t>(g)].nodes;
      if (nodes.front() < between.front() || nodes.back() > between.back()) return false;
    }
  }
  return true;
}

}  // namespace

void fuse_matmul_epilogues(const trace::Segment& segment, const std::vector<bool>& needed,
                           std::vector<FusedGroup>& groups) {
  std::vector<std::uint32_t> last_touch(segment.values.size(), 0);
  std::vector<std::uint32_t> needed_nodes;
  std::vector<std::int64_t> position(segment.nodes.size(), -1);  // in needed_nodes
  for (std::uint32_t i = 0; i < segment.nodes.size(); ++i) {
    if (!needed[i]) continue;
    position[i] = static_cast<std::int64_t>(needed_nodes.size());
    needed_nodes.push_back(i);
    const trace::Node& node = segment.nodes[i];
    for (int k = 0; k < node.arity; ++k)
      if (!node.in[k].is_scalar()) last_touch[node.in[k].value] = i;
    last_touch[node.out.value] = i;
  }
  const std::vector<std::int32_t> group_of = group_of_nodes(groups, segment.nodes.size());
  for (FusedGroup& group : groups) {
    // The nearest needed matmul before the group, and the needed nodes between.
    std::int64_t p = position[group.nodes.front()] - 1;
    std::vector<std::uint32_t> between;
    while (p >= 0 && between.size() <= kHoistLimit && !is_float_matmul(segment.nodes[needed_nodes[p]]))
      between.insert(between.begin(), needed_nodes[p--]);
    if (p < 0 || between.size() > kHoistLimit) continue;
    const std::uint32_t index = needed_nodes[p];
    if (!between.empty() && !can_run_before(segment, index, between, group_of, groups)) continue;
    auto head = head_for(segment, index, group, last_touch[segment.nodes[index].out.value]);
    if (!head) continue;
    group.same_view.push_back({group.inputs[head->product_input], {index, -1}});
    group.nodes.insert(group.nodes.begin(), index);
    group.matmul = std::move(head);
    group.run_first = std::move(between);
  }
}

}  // namespace kiln::jit

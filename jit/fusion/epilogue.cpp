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

}  // namespace

void fuse_matmul_epilogues(const trace::Segment& segment, const std::vector<bool>& needed,
                           std::vector<FusedGroup>& groups) {
  std::vector<std::uint32_t> last_touch(segment.values.size(), 0);
  std::vector<std::int64_t> previous_needed(segment.nodes.size(), -1);
  std::int64_t previous = -1;
  for (std::uint32_t i = 0; i < segment.nodes.size(); ++i) {
    if (!needed[i]) continue;
    previous_needed[i] = previous;
    previous = i;
    const trace::Node& node = segment.nodes[i];
    for (int k = 0; k < node.arity; ++k)
      if (!node.in[k].is_scalar()) last_touch[node.in[k].value] = i;
    last_touch[node.out.value] = i;
  }
  for (FusedGroup& group : groups) {
    const std::int64_t mm = previous_needed[group.nodes.front()];
    if (mm < 0 || !is_float_matmul(segment.nodes[mm])) continue;
    const auto index = static_cast<std::uint32_t>(mm);
    auto head = head_for(segment, index, group, last_touch[segment.nodes[index].out.value]);
    if (!head) continue;
    group.same_view.push_back({group.inputs[head->product_input], {index, -1}});
    group.nodes.insert(group.nodes.begin(), index);
    group.matmul = std::move(head);
  }
}

}  // namespace kiln::jit

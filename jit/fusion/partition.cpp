#include "jit/fusion/partition.h"

#include <algorithm>
#include <optional>

#include "jit/fusion/iteration_space.h"

#include "jit/fusion/epilogue.h"

namespace kiln::jit {
namespace {

using trace::Geometry;
using trace::Node;

// Loops over a row a group may need (KernelPhases::loops): layer norm needs 3.
constexpr int kMaxLoops = 4;

ScalarType result_dtype(const Node& node) {
  switch (trace::info(node.op).rule) {
    case trace::DtypeRule::Compare:
    case trace::DtypeRule::Logical: return ScalarType::Bool;
    case trace::DtypeRule::Index: return ScalarType::Int64;
    default: return node.op == trace::OpId::Copy ? node.out.dtype : node.dtype;
  }
}

// One group under construction.
class GroupBuilder {
 public:
  GroupBuilder(const trace::Segment& seg, const std::vector<std::uint32_t>& last_touch)
      : seg_(seg), last_touch_(last_touch) {}

  bool empty() const { return group_.nodes.empty(); }

  bool can_join(std::uint32_t i) const {
    const Node& node = seg_.nodes[i];
    const bool reduction = is_reduction(node.op);
    if (!is_fusible(node.op, node.dtype) && !reduction) return false;
    IterationSpace space = empty() ? IterationSpace(reduction ? node.in[0].geo : node.out.geo) : space_;
    int depth = 0;
    if (reduction) {
      if (!space.is_full(node.in[0].geo.shape())) return false;
      if (!space.rows_for(node.attrs.i[0]) || overwrites_input_) return false;
      space.reduce_over(node.attrs.i[0]);
    } else if (!space.is_full(node.out.geo.shape()) && !(space.row_dims() > 0 && space.is_row_shaped(node.out.geo))) {
      return false;  // row-level nodes need rows: a partial kernel has none
    }
    for (int k = 0; k < node.arity; ++k) {
      const trace::Operand& in = node.in[k];
      if (in.is_scalar()) continue;
      const std::optional<IterStrides> walk = space.map(in.geo);
      if (!walk) return false;
      if (const Access* w = find(written_, in.value)) {
        if (!space.same_walk(w->walk, *walk)) return false;
        depth = std::max(depth, w->depth);
      }
    }
    if (reduction) ++depth;
    // A partial kernel's reductions end with the range it was given: nothing reads them.
    if (space.reduces() && space.row_dims() == 0 && depth > (reduction ? 1 : 0)) return false;
    if (depth >= kMaxLoops) return false;
    const std::optional<IterStrides> out = space.map(node.out.geo);
    if (!out) return false;
    std::uint32_t v = node.out.value;
    // A write over elements this very node reads elsewhere (a.add_(a.t())):
    // lanes would read what other lanes already wrote. Tier 0 stages a copy.
    for (int k = 0; k < node.arity; ++k)
      if (!node.in[k].is_scalar() && node.in[k].value == v && !space.same_walk(*space.map(node.in[k].geo), *out))
        return false;
    if (const Access* w = find(written_, v); w && !space.same_walk(w->walk, *out)) return false;
    for (const Access& r : loaded_) {
      if (r.value != v) continue;
      // Loops after the first reread inputs: none may be overwritten in a row kernel.
      if (space.reduces() || !space.same_walk(r.walk, *out)) return false;
    }
    return true;
  }

  void add(std::uint32_t i) {
    const Node& node = seg_.nodes[i];
    const bool reduction = is_reduction(node.op);
    if (empty()) space_ = IterationSpace(reduction ? node.in[0].geo : node.out.geo);
    if (reduction) space_.reduce_over(node.attrs.i[0]);
    group_.nodes.push_back(i);
    KernelInstr instr;
    instr.op = node.op;
    instr.dtype = reduction ? node.in[0].dtype : node.dtype;
    instr.out_dtype = result_dtype(node);
    instr.arity = node.arity;
    instr.attr = reduction ? 0 : node.attrs.i[0];  // a reduction's dims are the spec's row_dims
    int depth = 0;
    for (int k = 0; k < node.arity; ++k) {
      ScalarType want = node.op == trace::OpId::Copy || reduction ? node.in[k].dtype
                        : (node.op == trace::OpId::Where && k == 0) ? ScalarType::Bool
                                                                    : node.dtype;
      instr.args[k] = convert(arg(i, k, depth), node.in[k].dtype, want);
    }
    if (reduction) ++depth;
    std::int32_t result = push(instr);
    if (instr.out_dtype != node.out.dtype) result = convert({ArgRef::Instr, result}, instr.out_dtype, node.out.dtype).index;

    OperandRef where{i, -1};
    const IterStrides walk = *space_.map(node.out.geo);
    for (const Access& r : loaded_)  // an in-place write over what the group loaded
      if (r.value == node.out.value) {
        group_.same_view.push_back({where, r.where});
        overwrites_input_ = true;
      }
    if (Access* w = find(written_, node.out.value)) {
      group_.same_view.push_back({where, w->where});
      w->instr = result;
      w->where = where;
      w->depth = depth;
    } else {
      written_.push_back({node.out.value, walk, where, result, -1, depth});
    }
  }

  /// Finishes the group: stores what outlives it, coalesces the loop dims.
  FusedGroup finish() {
    std::uint32_t last = group_.nodes.back();
    for (const Access& w : written_) {
      const trace::Value& v = seg_.values[w.value];
      if (!(v.live || !v.produced || last_touch_[w.value] > last)) continue;  // dies inside the group
      KernelOutput out;
      out.instr = w.instr;
      out.mem.dtype = operand(seg_, w.where).dtype;
      copy_strides(w.walk, out.mem);
      group_.spec.outputs.push_back(out);
      group_.outputs.push_back(w.where);
    }
    space_.coalesce(group_.spec);
    return std::move(group_);
  }

 private:
  struct Access {
    std::uint32_t value;
    IterStrides walk;
    OperandRef where;
    std::int32_t instr;  // written: the instruction holding its value
    std::int32_t input;  // loaded: the spec input
    int depth = 0;       // written: loops over the row completed before it exists
  };

  static Access* find(std::vector<Access>& list, std::uint32_t value) {
    for (Access& a : list)
      if (a.value == value) return &a;
    return nullptr;
  }
  static const Access* find(const std::vector<Access>& list, std::uint32_t value) {
    for (const Access& a : list)
      if (a.value == value) return &a;
    return nullptr;
  }

  void copy_strides(const IterStrides& walk, KernelOperand& mem) const {
    for (int d = 0; d < space_.ndim(); ++d) mem.strides[d] = walk.s[d];
  }

  std::int32_t push(const KernelInstr& instr) {
    group_.spec.instrs.push_back(instr);
    return static_cast<std::int32_t>(group_.spec.instrs.size() - 1);
  }

  ArgRef convert(ArgRef a, ScalarType from, ScalarType to) {
    if (from == to) return a;
    KernelInstr cast;
    cast.op = trace::OpId::Copy;
    cast.dtype = from;
    cast.out_dtype = to;
    cast.arity = 1;
    cast.args[0] = a;
    return {ArgRef::Instr, push(cast)};
  }

  // Operand k of node i as an argument; raises `depth` to that of a value
  // the group computed.
  ArgRef arg(std::uint32_t i, int k, int& depth) {
    const trace::Operand& in = seg_.nodes[i].in[k];
    OperandRef where{i, static_cast<std::int8_t>(k)};
    if (in.is_scalar()) {
      group_.scalars.push_back(where);
      group_.spec.scalars.push_back(in.dtype);
      return {ArgRef::Scalar, static_cast<std::int32_t>(group_.spec.scalars.size() - 1)};
    }
    const IterStrides walk = *space_.map(in.geo);
    if (Access* w = find(written_, in.value)) {
      group_.same_view.push_back({where, w->where});
      depth = std::max(depth, w->depth);
      return {ArgRef::Instr, w->instr};
    }
    for (const Access& r : loaded_) {
      // Views of one storage at different offsets (a window's kernel
      // offsets, selected one by one) are different inputs: merged, every
      // run would fail views_match and fall back to tier 0.
      if (r.value == in.value && space_.same_walk(r.walk, walk) &&
          operand(seg_, r.where).geo.offset == in.geo.offset) {
        group_.same_view.push_back({where, r.where});
        return {ArgRef::Input, r.input};
      }
    }
    KernelOperand mem;
    mem.dtype = in.dtype;
    copy_strides(walk, mem);
    group_.spec.inputs.push_back(mem);
    group_.inputs.push_back(where);
    auto input = static_cast<std::int32_t>(group_.spec.inputs.size() - 1);
    loaded_.push_back({in.value, walk, where, -1, input, 0});
    return {ArgRef::Input, input};
  }

  const trace::Segment& seg_;
  const std::vector<std::uint32_t>& last_touch_;
  FusedGroup group_;
  IterationSpace space_;
  std::vector<Access> written_;
  std::vector<Access> loaded_;
  bool overwrites_input_ = false;  // some node wrote over a value the group loaded
};

// A reduction over every dim with nothing fused to it, over less than one
// chunk: its tier-0 kernel is one pass already, and launching the partial
// kernel and combining its slot costs more (a 256-element sum: about 270
// ns against 170 ns on tier 0, which the feedback then demotes).
bool lone_small_reduction(const FusedGroup& g) {
  return g.nodes.size() == 1 && g.spec.is_partial() && g.spec.numel() < kPartialChunk;
}

}  // namespace

std::vector<std::int32_t> group_of_nodes(const std::vector<FusedGroup>& groups, std::size_t nodes) {
  std::vector<std::int32_t> group_of(nodes, -1);
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::uint32_t i : groups[g].nodes) group_of[i] = static_cast<std::int32_t>(g);
  return group_of;
}

const trace::Operand& operand(const trace::Segment& segment, OperandRef ref) {
  const Node& node = segment.nodes[ref.node];
  return ref.operand < 0 ? node.out : node.in[ref.operand];
}

bool views_match(const trace::Segment& segment, const FusedGroup& group) {
  for (const auto& [a, b] : group.same_view)
    if (operand(segment, a).geo.offset != operand(segment, b).geo.offset) return false;
  return true;
}

std::vector<FusedGroup> partition(const trace::Segment& segment, const std::vector<bool>& needed,
                                  std::size_t min_nodes) {
  // The last needed node that reads or writes each value.
  std::vector<std::uint32_t> last_touch(segment.values.size(), 0);
  for (std::uint32_t i = 0; i < segment.nodes.size(); ++i) {
    if (!needed[i]) continue;
    const Node& node = segment.nodes[i];
    for (int k = 0; k < node.arity; ++k)
      if (!node.in[k].is_scalar()) last_touch[node.in[k].value] = i;
    last_touch[node.out.value] = i;
  }

  std::vector<FusedGroup> groups;
  auto builder = std::make_unique<GroupBuilder>(segment, last_touch);
  auto close = [&] {
    if (builder->empty()) return;
    FusedGroup g = builder->finish();
    if (g.nodes.size() >= min_nodes && !g.spec.outputs.empty() && !lone_small_reduction(g)) groups.push_back(std::move(g));
    builder = std::make_unique<GroupBuilder>(segment, last_touch);
  };
  for (std::uint32_t i = 0; i < segment.nodes.size(); ++i) {
    if (!needed[i]) continue;
    if (!builder->can_join(i)) {
      close();
      if (!builder->can_join(i)) continue;  // not fusible at all: tier 0 runs it
    }
    builder->add(i);
  }
  close();
  fuse_matmul_epilogues(segment, needed, groups);
  return groups;
}

}  // namespace kiln::jit

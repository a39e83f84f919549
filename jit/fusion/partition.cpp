#include "jit/fusion/partition.h"

#include <algorithm>

#include "jit/fusion/epilogue.h"

namespace kiln::jit {
namespace {

using trace::Geometry;
using trace::Node;

bool same_layout(const Geometry& a, const Geometry& b) {
  if (a.ndim != b.ndim) return false;
  for (int d = 0; d < a.ndim; ++d)
    if (a.sizes[d] != b.sizes[d] || a.strides[d] != b.strides[d]) return false;
  return true;
}

ScalarType result_dtype(const Node& node) {
  switch (trace::info(node.op).rule) {
    case trace::DtypeRule::Compare:
    case trace::DtypeRule::Logical: return ScalarType::Bool;
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
    if (!is_fusible(node.op)) return false;
    if (!empty() && !(node.out.geo.shape() == shape_.shape())) return false;
    for (int k = 0; k < node.arity; ++k) {
      const trace::Operand& in = node.in[k];
      if (in.is_scalar()) continue;
      if (const Access* w = find(written_, in.value); w && !same_layout(w->geo, in.geo)) return false;
    }
    std::uint32_t v = node.out.value;
    // A write over elements this very node reads elsewhere (a.add_(a.t())):
    // lanes would read what other lanes already wrote. Tier 0 stages a copy.
    for (int k = 0; k < node.arity; ++k)
      if (!node.in[k].is_scalar() && node.in[k].value == v && !same_layout(node.in[k].geo, node.out.geo)) return false;
    if (const Access* w = find(written_, v); w && !same_layout(w->geo, node.out.geo)) return false;
    for (const Access& r : loaded_)
      if (r.value == v && !same_layout(r.geo, node.out.geo)) return false;
    return true;
  }

  void add(std::uint32_t i) {
    const Node& node = seg_.nodes[i];
    if (empty()) shape_ = node.out.geo;
    group_.nodes.push_back(i);
    KernelInstr instr;
    instr.op = node.op;
    instr.dtype = node.dtype;
    instr.out_dtype = result_dtype(node);
    instr.arity = node.arity;
    instr.attr = node.attrs.i[0];
    for (int k = 0; k < node.arity; ++k) {
      ScalarType want = node.op == trace::OpId::Copy ? node.in[k].dtype
                        : (node.op == trace::OpId::Where && k == 0) ? ScalarType::Bool
                                                                    : node.dtype;
      instr.args[k] = convert(arg(i, k), node.in[k].dtype, want);
    }
    std::int32_t result = push(instr);
    if (instr.out_dtype != node.out.dtype) result = convert({ArgRef::Instr, result}, instr.out_dtype, node.out.dtype).index;

    OperandRef where{i, -1};
    for (const Access& r : loaded_)  // an in-place write over what the group loaded
      if (r.value == node.out.value) group_.same_view.push_back({where, r.where});
    if (Access* w = find(written_, node.out.value)) {
      group_.same_view.push_back({where, w->where});
      w->instr = result;
      w->where = where;
    } else {
      written_.push_back({node.out.value, node.out.geo, where, result, -1});
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
      copy_strides(w.geo, out.mem);
      group_.spec.outputs.push_back(out);
      group_.outputs.push_back(w.where);
    }
    coalesce();
    return std::move(group_);
  }

 private:
  struct Access {
    std::uint32_t value;
    Geometry geo;
    OperandRef where;
    std::int32_t instr;  // written: the instruction holding its value
    std::int32_t input;  // loaded: the spec input
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

  void copy_strides(const Geometry& g, KernelOperand& mem) const {
    for (int d = 0; d < shape_.ndim; ++d) mem.strides[d] = g.strides[d];
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

  ArgRef arg(std::uint32_t i, int k) {
    const trace::Operand& in = seg_.nodes[i].in[k];
    OperandRef where{i, static_cast<std::int8_t>(k)};
    if (in.is_scalar()) {
      group_.scalars.push_back(where);
      group_.spec.scalars.push_back(in.dtype);
      return {ArgRef::Scalar, static_cast<std::int32_t>(group_.spec.scalars.size() - 1)};
    }
    if (Access* w = find(written_, in.value)) {
      group_.same_view.push_back({where, w->where});
      return {ArgRef::Instr, w->instr};
    }
    for (const Access& r : loaded_) {
      if (r.value == in.value && same_layout(r.geo, in.geo)) {
        group_.same_view.push_back({where, r.where});
        return {ArgRef::Input, r.input};
      }
    }
    KernelOperand mem;
    mem.dtype = in.dtype;
    copy_strides(in.geo, mem);
    group_.spec.inputs.push_back(mem);
    group_.inputs.push_back(where);
    auto input = static_cast<std::int32_t>(group_.spec.inputs.size() - 1);
    loaded_.push_back({in.value, in.geo, where, -1, input});
    return {ArgRef::Input, input};
  }

  // Drops size-1 dims and merges dims that every operand walks contiguously,
  // so a contiguous tensor of any shape becomes one flat, vectorizable loop.
  void coalesce() {
    KernelSpec& s = group_.spec;
    std::vector<KernelOperand*> mems;
    for (KernelOperand& m : s.inputs) mems.push_back(&m);
    for (KernelOutput& o : s.outputs) mems.push_back(&o.mem);
    int nd = 0;
    std::int64_t sizes[trace::kMaxDims];
    for (int d = 0; d < shape_.ndim; ++d) {
      std::int64_t n = shape_.sizes[d];
      if (n == 1) continue;
      bool merge = nd > 0;
      for (KernelOperand* m : mems) merge = merge && m->strides[nd - 1] == m->strides[d] * n;
      if (merge) {
        sizes[nd - 1] *= n;
        for (KernelOperand* m : mems) m->strides[nd - 1] = m->strides[d];
      } else {
        sizes[nd] = n;
        for (KernelOperand* m : mems) m->strides[nd] = m->strides[d];
        ++nd;
      }
    }
    if (nd == 0) {  // a single element
      sizes[0] = 1;
      for (KernelOperand* m : mems) m->strides[0] = 0;
      nd = 1;
    }
    s.ndim = nd;
    for (int d = 0; d < nd; ++d) s.sizes[d] = sizes[d];
    for (KernelOperand* m : mems)
      for (int d = nd; d < trace::kMaxDims; ++d) m->strides[d] = 0;
  }

  const trace::Segment& seg_;
  const std::vector<std::uint32_t>& last_touch_;
  FusedGroup group_;
  Geometry shape_;
  std::vector<Access> written_;
  std::vector<Access> loaded_;
};

}  // namespace

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
    if (g.nodes.size() >= min_nodes && !g.spec.outputs.empty()) groups.push_back(std::move(g));
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

#include "jit/fusion/kernel_phases.h"

#include <algorithm>

namespace kiln::jit {

bool calls_math_function(const KernelInstr& instr) {
  using trace::OpId;
  switch (instr.op) {
    case OpId::Exp:
    case OpId::Log:
    case OpId::Log1p:
    case OpId::Sin:
    case OpId::Cos:
    case OpId::Tanh:
    case OpId::Erf:
    case OpId::Sigmoid:
    case OpId::Gelu: return true;
    case OpId::Pow: return is_floating_point(instr.dtype);
    default: return false;
  }
}

bool row_level_input(const KernelSpec& spec, std::size_t k) {
  if (spec.row_dims == 0) return false;
  for (int d = spec.row_dims; d < spec.ndim; ++d)
    if (spec.inputs[k].strides[d] != 0) return false;
  return true;
}

bool row_level_output(const KernelSpec& spec, std::size_t k) {
  const KernelOutput& out = spec.outputs[k];
  if (spec.row_dims == 0) return is_reduction(spec.instrs[out.instr].op);
  for (int d = spec.row_dims; d < spec.ndim; ++d)
    if (out.mem.strides[d] != 0) return false;
  return true;
}

KernelPhases plan_phases(const KernelSpec& spec) {
  const std::size_t n = spec.instrs.size();
  KernelPhases p;
  p.row_level.assign(n, true);
  p.depth.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const KernelInstr& instr = spec.instrs[i];
    int depth = 0;
    bool row = true;
    for (int k = 0; k < instr.arity; ++k) {
      const ArgRef& a = instr.args[k];
      if (a.kind == ArgRef::Instr) {
        depth = std::max(depth, p.depth[a.index]);
        row = row && p.row_level[a.index];
      } else if (a.kind == ArgRef::Input) {
        row = row && row_level_input(spec, a.index);
      }
    }
    if (is_reduction(instr.op)) {
      p.loops = std::max(p.loops, depth + 1);
      p.depth[i] = depth + 1;
      p.row_level[i] = true;
    } else {
      p.depth[i] = depth;
      p.row_level[i] = row;
    }
  }
  p.store_loop.assign(spec.outputs.size(), -1);
  for (std::size_t k = 0; k < spec.outputs.size(); ++k) {
    if (row_level_output(spec, k)) continue;
    p.store_loop[k] = p.depth[spec.outputs[k].instr];
    p.loops = std::max(p.loops, p.store_loop[k] + 1);
  }

  // Each loop evaluates what its reductions and stores need, walking the
  // arguments back to row-level values (computed before the loop), or to a
  // costly value an earlier loop computed, which it reloads from its buffer.
  p.in_loop.assign(p.loops, std::vector<bool>(n, false));
  p.reload.assign(p.loops, std::vector<bool>(n, false));
  p.cache_loop.assign(n, -1);
  if (spec.row_dims > 0) {
    p.row_elements = 1;
    for (int d = spec.row_dims; d < spec.ndim; ++d) p.row_elements *= spec.sizes[d];
  }
  std::int64_t cache_bytes = 0;
  auto first_loop = [&](std::size_t i, int before) {
    for (int loop = 0; loop < before; ++loop)
      if (p.in_loop[loop][i]) return loop;
    return -1;
  };
  // Keeps %i in a row buffer written by loop `from`, if the budget allows.
  auto keep = [&](std::size_t i, int from) {
    if (p.cache_loop[i] >= 0) return true;
    const KernelInstr& instr = spec.instrs[i];
    if (from < 0 || spec.row_dims == 0 || !calls_math_function(instr)) return false;
    if (!is_floating_point(instr.out_dtype)) return false;
    const std::int64_t bytes = p.row_elements * static_cast<std::int64_t>(element_size(instr.out_dtype));
    if (cache_bytes + bytes > kRowCacheBytes) return false;
    cache_bytes += bytes;
    p.cache_loop[i] = from;
    return true;
  };
  for (int loop = 0; loop < p.loops; ++loop) {
    std::vector<bool>& need = p.in_loop[loop];
    auto want_arg = [&](const KernelInstr& instr) {
      for (int k = 0; k < instr.arity; ++k)
        if (instr.args[k].kind == ArgRef::Instr && !p.row_level[instr.args[k].index]) need[instr.args[k].index] = true;
    };
    for (std::size_t i = 0; i < n; ++i)
      if (is_reduction(spec.instrs[i].op) && p.depth[i] == loop + 1) want_arg(spec.instrs[i]);
    for (std::size_t k = 0; k < spec.outputs.size(); ++k)
      if (p.store_loop[k] == loop && !p.row_level[spec.outputs[k].instr]) need[spec.outputs[k].instr] = true;
    for (std::size_t i = n; i-- > 0;) {
      if (!need[i]) continue;
      if (keep(i, first_loop(i, loop)) && p.cache_loop[i] < loop) p.reload[loop][i] = true;
      else want_arg(spec.instrs[i]);
    }
  }
  return p;
}

}  // namespace kiln::jit

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

namespace {

// Whether loop `loop` loads an input that varies along the row.
bool reads_row_input(const KernelSpec& spec, const KernelPhases& p, int loop) {
  for (std::size_t i = 0; i < spec.instrs.size(); ++i) {
    const KernelInstr& instr = spec.instrs[i];
    const bool evaluated = is_reduction(instr.op) ? p.depth[i] == loop + 1 : p.in_loop[loop][i] && !p.reload[loop][i];
    if (!evaluated) continue;
    for (int k = 0; k < instr.arity; ++k)
      if (instr.args[k].kind == ArgRef::Input && !row_level_input(spec, instr.args[k].index)) return true;
  }
  return false;
}

// A kept value whose last reading loop is at or before the loop storing an
// output of its dtype keeps its row in that output's row instead of on the
// stack: each element is overwritten by its final value after its last
// read. Softmax then writes exp(x - max) where its result goes, and the
// storing loop rescales in place. Such a buffer needs no stack, so rows of
// any length keep it: softmax over rows past the stack's budget computed
// exp twice, and took 1.4-1.7x as long on one thread at 16K and 64K
// columns. An output may be an input's memory (an in-place kernel), so no
// loop after the one writing the buffer may load an input that varies
// along the row.
void place_buffers_in_outputs(const KernelSpec& spec, KernelPhases& p) {
  p.cache_output.assign(spec.instrs.size(), -1);
  std::vector<bool> taken(spec.outputs.size(), false);
  for (std::size_t i = 0; i < spec.instrs.size(); ++i) {
    if (p.cache_loop[i] < 0) continue;
    int last_read = p.cache_loop[i];
    for (int loop = 0; loop < p.loops; ++loop)
      if (p.reload[loop][i]) last_read = loop;
    for (std::size_t k = 0; k < spec.outputs.size(); ++k) {
      const int store = p.store_loop[k];
      if (taken[k] || store < last_read || store <= p.cache_loop[i]) continue;
      if (spec.outputs[k].mem.dtype != spec.instrs[i].out_dtype) continue;
      bool safe = true;
      for (int loop = p.cache_loop[i] + 1; loop <= store; ++loop) safe = safe && !reads_row_input(spec, p, loop);
      if (!safe) continue;
      p.cache_output[i] = static_cast<int>(k);
      taken[k] = true;
      break;
    }
  }
}

std::int64_t buffer_bytes(const KernelPhases& p, const KernelInstr& instr) {
  return p.row_elements * static_cast<std::int64_t>(element_size(instr.out_dtype));
}

// The phases with every costly value a later loop needs kept in a row
// buffer, except those in `refused` (recomputed); `kept` lists the kept ones
// in the order they were chosen.
KernelPhases plan_loops(const KernelSpec& spec, const std::vector<bool>& refused, std::vector<std::size_t>& kept) {
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
  auto first_loop = [&](std::size_t i, int before) {
    for (int loop = 0; loop < before; ++loop)
      if (p.in_loop[loop][i]) return loop;
    return -1;
  };
  // Keeps %i in a row buffer written by loop `from`.
  auto keep = [&](std::size_t i, int from) {
    if (p.cache_loop[i] >= 0) return true;
    const KernelInstr& instr = spec.instrs[i];
    if (from < 0 || spec.row_dims == 0 || refused[i] || !calls_math_function(instr)) return false;
    if (!is_floating_point(instr.out_dtype)) return false;
    p.cache_loop[i] = from;
    kept.push_back(i);
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

}  // namespace

// Planned with every wanted buffer first; then the first buffer chosen
// that must stay on the stack and passes the stack's budget is refused
// and the rest planned again (its arguments are then needed in later
// loops), until the stack buffers fit.
KernelPhases plan_phases(const KernelSpec& spec) {
  std::vector<bool> refused(spec.instrs.size(), false);
  for (;;) {
    std::vector<std::size_t> kept;
    KernelPhases p = plan_loops(spec, refused, kept);
    place_buffers_in_outputs(spec, p);
    std::int64_t stack = 0;
    std::size_t over = spec.instrs.size();
    for (std::size_t i : kept) {
      if (p.cache_output[i] >= 0) continue;
      stack += buffer_bytes(p, spec.instrs[i]);
      if (stack > kRowCacheBytes) {
        over = i;
        break;
      }
    }
    if (over == spec.instrs.size()) return p;
    refused[over] = true;
  }
}


}  // namespace kiln::jit

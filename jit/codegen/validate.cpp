#include "jit/codegen/validate.h"

#include <algorithm>

#include <kiln/error.h>

#include "jit/fusion/kernel_phases.h"

namespace kiln::jit::codegen {
namespace {

using trace::DtypeRule;

// The result dtype `instr` must declare, given the dtype it computes in.
bool out_dtype_ok(const KernelInstr& instr) {
  if (instr.op == trace::OpId::Copy) return true;
  if (instr.op == trace::OpId::Argmax || instr.op == trace::OpId::Argmin) return instr.out_dtype == kInt64;
  if (instr.op == trace::OpId::Sum || instr.op == trace::OpId::Prod)
    return instr.out_dtype == instr.dtype || (!is_floating_point(instr.dtype) && instr.out_dtype == kInt64);
  const DtypeRule rule = trace::info(instr.op).rule;
  if (rule == DtypeRule::Compare || rule == DtypeRule::Logical) return instr.out_dtype == kBool;
  return instr.out_dtype == instr.dtype;
}

bool valid_dtype(ScalarType t) { return static_cast<int>(t) < kNumScalarTypes; }

template <class... A>
[[noreturn]] void fail(const KernelSpec& spec, const A&... what) {
  throw InternalError(detail::cat("[jit] malformed kernel spec: ", what..., "\n", spec.to_string()));
}

// The forms of KernelSpec::row_dims, and what each allows.
void validate_rows(const KernelSpec& spec) {
  const bool reduces = spec.has_reduction();
  if (spec.row_dims < 0 || spec.row_dims >= std::max(spec.ndim, 1) || (!reduces && spec.row_dims != 0))
    fail(spec, "row_dims ", spec.row_dims, " with ndim ", spec.ndim, reduces ? " and reductions" : " and no reduction");
  if (!reduces) return;
  const KernelPhases phases = plan_phases(spec);
  for (std::size_t k = 0; k < spec.outputs.size(); ++k)
    if (phases.store_loop[k] < 0 && !phases.row_level[spec.outputs[k].instr])
      fail(spec, "output ", k, " is row-level but its value %", spec.outputs[k].instr, " varies along the row");
  if (spec.row_dims > 0) return;
  if (phases.loops > 1) fail(spec, "a partial kernel has one loop, not ", phases.loops);
  for (std::size_t i = 0; i < spec.instrs.size(); ++i)
    for (int k = 0; k < spec.instrs[i].arity; ++k)
      if (spec.instrs[i].args[k].kind == ArgRef::Instr && is_reduction(spec.instrs[spec.instrs[i].args[k].index].op))
        fail(spec, "%", i, " reads a partial reduction");
}

}  // namespace

ScalarType operand_dtype(const KernelInstr& instr, int k) {
  return instr.op == trace::OpId::Where && k == 0 ? kBool : instr.dtype;
}

ScalarType arg_dtype(const KernelSpec& spec, const ArgRef& arg) {
  switch (arg.kind) {
    case ArgRef::Instr: return spec.instrs[arg.index].out_dtype;
    case ArgRef::Input: return spec.inputs[arg.index].dtype;
    case ArgRef::Scalar: return spec.scalars[arg.index];
  }
  return kFloat32;
}

void validate(const KernelSpec& spec) {
  if (spec.ndim < 0 || spec.ndim > trace::kMaxDims) fail(spec, "ndim ", spec.ndim);
  if (spec.dynamic_dims >> spec.ndim) fail(spec, "dynamic_dims ", spec.dynamic_dims, " has a bit at or past ndim ", spec.ndim);
  for (int d = 0; d < spec.ndim; ++d)
    if (spec.sizes[d] < 0) fail(spec, "size ", spec.sizes[d], " of dim ", d);
  for (const KernelOperand& in : spec.inputs)
    if (!valid_dtype(in.dtype)) fail(spec, "input dtype ", static_cast<int>(in.dtype));
  for (ScalarType s : spec.scalars)
    if (!valid_dtype(s)) fail(spec, "scalar dtype ", static_cast<int>(s));

  for (std::size_t i = 0; i < spec.instrs.size(); ++i) {
    const KernelInstr& instr = spec.instrs[i];
    if (static_cast<int>(instr.op) >= trace::kNumOps) fail(spec, "%", i, ": op id ", static_cast<int>(instr.op));
    const char* name = trace::name(instr.op);
    if (!is_fusible(instr.op) && !is_reduction(instr.op)) fail(spec, "%", i, ": ", name, " is not a fusible op");
    if (instr.arity != trace::info(instr.op).arity) fail(spec, "%", i, ": ", name, " with arity ", int(instr.arity));
    if (!valid_dtype(instr.dtype) || !valid_dtype(instr.out_dtype)) fail(spec, "%", i, ": bad dtype");
    if (!out_dtype_ok(instr)) fail(spec, "%", i, ": ", name, " cannot produce ", instr.out_dtype);
    for (int k = 0; k < instr.arity; ++k) {
      const ArgRef& arg = instr.args[k];
      const std::int64_t limit = arg.kind == ArgRef::Instr   ? static_cast<std::int64_t>(i)
                                 : arg.kind == ArgRef::Input ? static_cast<std::int64_t>(spec.inputs.size())
                                 : arg.kind == ArgRef::Scalar ? static_cast<std::int64_t>(spec.scalars.size())
                                                              : -1;
      if (limit < 0) fail(spec, "%", i, ": argument ", k, " has kind ", int(arg.kind));
      if (arg.index < 0 || arg.index >= limit)
        fail(spec, "%", i, ": argument ", k, " names ", arg.kind == ArgRef::Instr ? "instruction %" : "operand ",
             arg.index, ", which is not defined before it");
    }
  }
  if (spec.outputs.empty()) fail(spec, "no outputs");
  for (std::size_t k = 0; k < spec.outputs.size(); ++k) {
    const KernelOutput& out = spec.outputs[k];
    if (out.instr < 0 || out.instr >= static_cast<std::int32_t>(spec.instrs.size()))
      fail(spec, "output ", k, " names instruction %", out.instr);
    if (!valid_dtype(out.mem.dtype)) fail(spec, "output ", k, ": bad dtype");
  }
  validate_rows(spec);
}

}  // namespace kiln::jit::codegen

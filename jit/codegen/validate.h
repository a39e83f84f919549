// Structural checks of a KernelSpec before it is lowered: a spec that fails
// them would make LLVM build ill-typed IR (or index out of bounds), so it is
// rejected with a message naming the offending field.
#pragma once

#include "jit/fusion/kernel_spec.h"

namespace kiln::jit::codegen {

/// Throws InternalError if `spec` is malformed: ndim or a size out of range,
/// a dynamic_dims bit at or past ndim, an op that is not fusible or has the
/// wrong arity, an argument naming a missing or later instruction, input or
/// scalar, an out_dtype the op does not produce, or an output naming a
/// missing instruction. Dtypes an op has no form for are reported by the
/// emitters.
void validate(const KernelSpec& spec);

/// The dtype argument `k` of `instr` is converted to before the op applies:
/// the condition of Where is read as bool, every other argument in instr.dtype.
ScalarType operand_dtype(const KernelInstr& instr, int k);

/// The dtype an argument carries as stored or computed (before conversion).
ScalarType arg_dtype(const KernelSpec& spec, const ArgRef& arg);

}  // namespace kiln::jit::codegen

// The IR emitters of the fusible ops: codegen's table keyed by OpId (one
// entry per op of trace/ops.def; ops that cannot be fused have none). Each
// emitter reproduces its tier-0 kernel (jit/kernels/) bit for bit, except
// that the transcendental functions may be replaced by libmvec's vector
// variants (at most 4 ulp from the scalar libm result), and float32 exp by
// inline code (codegen/inline_exp.h, at most 1.04 ulp).
// Private to jit/codegen (LLVM inside).
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/IR/Value.h>

#include "jit/codegen/ir_context.h"
#include "jit/fusion/kernel_spec.h"
#include "jit/kernels/dtype_dispatch.h"

namespace kiln::jit::codegen {

/// Emits one instruction. `args` are already converted to the dtypes the op
/// reads (codegen::operand_dtype); the result has dtype instr.out_dtype.
using EmitFn = llvm::Value* (*)(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args);

struct OpEmitter {
  DtypeSet dtypes = 0;  // the compute dtypes the op has a form for (as its tier-0 kernel)
  EmitFn emit = nullptr;
};

/// The emitter of `op`; {0, nullptr} for an op that cannot be fused.
OpEmitter op_emitter(trace::OpId op);

/// Emitters by family, used by the table.
llvm::Value* emit_neg(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_abs(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_relu(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_add(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_sub(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_mul(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_div(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_pow(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_maximum(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_minimum(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_compare(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_logical(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_where(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_copy(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_fmod(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);  // fmod, remainder
llvm::Value* emit_floor_divide(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_math(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);  // exp ... tanh, floor ... trunc
llvm::Value* emit_sigmoid(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);
llvm::Value* emit_gelu(IrContext&, const KernelInstr&, llvm::ArrayRef<llvm::Value*>);

}  // namespace kiln::jit::codegen

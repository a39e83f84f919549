// y * 2^n for float32, as one instruction where the target has one. The
// last step of the inline exp (codegen/inline_exp.h) scaled by 2^n in two
// halves, built from integer ops: 9 of the 27 vector ops of exp(x - max) in
// the softmax row kernel. AVX-512 does it in one (vscalefps), but LLVM 19
// neither vectorizes llvm.ldexp nor lowers it to vscalefps, and the loop
// vectorizer cannot widen a call of a target intrinsic.
//
// So the emitter calls a placeholder, kiln.scalef.f32(y, n); the loop
// vectorizer widens it through vector forms registered in the library info
// (4, 8 and 16 lanes, like libmvec's, codegen/vector_math.h); after the
// optimizer, every call is replaced: vscalefps where the target has it for
// the call's width (AVX-512F for 16 lanes, AVX-512VL for 4 and 8), else the
// two halves in the call's own type (scalar or vector). Both round once, so
// they give the same bits. Private to jit/codegen.
#pragma once

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Value.h>
#include <llvm/Target/TargetMachine.h>

#include "jit/codegen/ir_context.h"

namespace kiln::jit::codegen {

/// 1.5 * 2^23: a float in [2^23, 2^24) has spacing 1, so x + this rounds x
/// to an integer and holds it in the low mantissa bits. The inline exp
/// computes n as (x / ln 2 + this) - this; the two halves read n back from
/// the sum's bits when the call's `n` is that difference.
inline constexpr double kRoundingShift = 12582912.0;

/// y * 2^n, rounded once: `y` a float32 value and `n` an integral float32 in
/// [-150, 129] (or NaN, with `y` NaN). Emits the placeholder call.
llvm::Value* emit_scale_by_power_of_two(IrContext& ir, llvm::Value* y, llvm::Value* n);

/// Registers the placeholder's vector forms with the loop vectorizer.
void add_power_of_two_scaling_forms(llvm::TargetLibraryInfoImpl& tli);

/// Replaces every placeholder call in `module` by code for `tm` (after the
/// optimizer; nothing may run the optimizer on the module after this).
void lower_power_of_two_scaling(llvm::Module& module, const llvm::TargetMachine& tm);

}  // namespace kiln::jit::codegen

// exp of float32 values as straight-line IR (no call), so that a loop with
// exp keeps its accumulators in registers and the vectorizer interleaves
// it freely: a libmvec call clobbers every vector register, which made the
// sum-of-exp loop of softmax spill and reload its accumulators around each
// call. Cephes' expf: n = round(x / ln 2), r = x - n ln 2 in two parts, a
// degree-7 polynomial of r, times 2^n by one rounding step
// (codegen/power_of_two_scaling.h: vscalefps on AVX-512, else in two
// halves, so that results near the overflow and subnormal ends scale
// without overflowing the exponent field); the polynomial by Estrin's
// scheme, three fmas deep.
// At most 1.04 ulp from the correctly rounded result over the normal range
// (checked against double exp on every 13th float); +inf above 88.72, 0
// below -103.98, NaN stays NaN. Private to jit/codegen.
#pragma once

#include <llvm/IR/Value.h>

#include "jit/codegen/ir_context.h"

namespace kiln::jit::codegen {

/// e^x for `x` of dtype `t`: the inline form for float32, libm's exp (and so
/// libmvec's in vector loops) for float64.
llvm::Value* emit_exp(IrContext& ir, ScalarType t, llvm::Value* x);

}  // namespace kiln::jit::codegen

// Optimization: LLVM's default O1 or O3 module pipeline for the host, with
// the loop vectorizer on at both levels (the kernels are loops over memory:
// without it O1 code is several times slower) and libmvec's vector math
// registered (codegen/vector_math.h). SLP vectorization only at O3. Last,
// the placeholders of y * 2^n become code for the target
// (codegen/power_of_two_scaling.h).
// Private to jit/codegen.
#pragma once

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace kiln::jit::codegen {

/// Optimizes `module` in place; `opt_level` is 1 or 3 (other values: 1).
/// `vector_math`: map math calls to libmvec (only if the JIT can link it).
void optimize(llvm::Module& module, llvm::TargetMachine& tm, int opt_level, bool vector_math);

}  // namespace kiln::jit::codegen

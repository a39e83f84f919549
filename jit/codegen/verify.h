// Verification: LLVM's IR verifier on a lowered module. Private to jit/codegen.
#pragma once

#include <llvm/IR/Module.h>

namespace kiln::jit::codegen {

/// Throws InternalError with the verifier's report if `module` is broken.
void verify(const llvm::Module& module);

}  // namespace kiln::jit::codegen

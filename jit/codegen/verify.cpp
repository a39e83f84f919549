#include "jit/codegen/verify.h"

#include <string>

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <kiln/error.h>

namespace kiln::jit::codegen {

void verify(const llvm::Module& module) {
  std::string report;
  llvm::raw_string_ostream out(report);
  if (llvm::verifyModule(module, &out)) {
    out.flush();
    throw InternalError("[jit] IR verifier rejected " + module.getName().str() + ": " + report);
  }
}

}  // namespace kiln::jit::codegen

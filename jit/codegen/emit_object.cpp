#include "jit/codegen/emit_object.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <kiln/error.h>

namespace kiln::jit::codegen {
namespace {

std::string emit(llvm::Module& module, llvm::TargetMachine& tm, llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream out(buffer);
  llvm::legacy::PassManager passes;
  if (tm.addPassesToEmitFile(passes, out, nullptr, type))
    throw InternalError("[jit] the target machine cannot emit this file type for " + module.getName().str());
  passes.run(module);
  return std::string(buffer.data(), buffer.size());
}

}  // namespace

std::string emit_object(llvm::Module& module, llvm::TargetMachine& tm) {
  return emit(module, tm, llvm::CodeGenFileType::ObjectFile);
}

std::string emit_assembly(const llvm::Module& module, llvm::TargetMachine& tm) {
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
  return emit(*copy, tm, llvm::CodeGenFileType::AssemblyFile);
}

}  // namespace kiln::jit::codegen

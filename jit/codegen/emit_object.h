// Code generation: an optimized module to an ELF object (what the JIT links
// and the disk cache stores) or to assembly text (for KILN_DUMP=asm).
// Private to jit/codegen.
#pragma once

#include <string>

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace kiln::jit::codegen {

/// The object file of `module` (codegen may change the module: emit last).
std::string emit_object(llvm::Module& module, llvm::TargetMachine& tm);

/// The assembly of `module`, generated from a copy (the module is unchanged).
std::string emit_assembly(const llvm::Module& module, llvm::TargetMachine& tm);

}  // namespace kiln::jit::codegen

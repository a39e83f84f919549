// The module every compiled kernel starts from: one external function for
// the target machine's triple, data layout, CPU and features. Private to
// jit/codegen (LLVM inside).
#pragma once

#include <memory>
#include <string>

#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace kiln::jit::codegen {

struct KernelModule {
  std::unique_ptr<llvm::Module> module;
  llvm::Function* fn;  // `name`, of `type`, nounwind, without a body yet
};

KernelModule new_kernel_module(const std::string& name, llvm::FunctionType* type, llvm::LLVMContext& context,
                               const llvm::TargetMachine& tm);

}  // namespace kiln::jit::codegen

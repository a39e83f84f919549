#include "jit/codegen/kernel_module.h"

namespace kiln::jit::codegen {

KernelModule new_kernel_module(const std::string& name, llvm::FunctionType* type, llvm::LLVMContext& context,
                               const llvm::TargetMachine& tm) {
  auto module = std::make_unique<llvm::Module>(name, context);
  module->setTargetTriple(tm.getTargetTriple().str());
  module->setDataLayout(tm.createDataLayout());
  auto* f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, *module);
  f->setDoesNotThrow();
  f->addFnAttr("target-cpu", tm.getTargetCPU());
  f->addFnAttr("target-features", tm.getTargetFeatureString());
  return {std::move(module), f};
}

}  // namespace kiln::jit::codegen

#include "jit/codegen/ir_context.h"

#include <string>

#include <kiln/error.h>

namespace kiln::jit::codegen {

llvm::Type* IrContext::value_type(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return b.getInt1Ty();
    case ScalarType::Int32: return b.getInt32Ty();
    case ScalarType::Int64: return b.getInt64Ty();
    case ScalarType::Float32: return b.getFloatTy();
    case ScalarType::Float64: return b.getDoubleTy();
  }
  KILN_CHECK(false, "dtype ", static_cast<int>(t));
}

llvm::Type* IrContext::memory_type(ScalarType t) {
  return t == ScalarType::Bool ? b.getInt8Ty() : value_type(t);
}

llvm::Constant* IrContext::constant(ScalarType t, double v) {
  llvm::Type* type = value_type(t);
  switch (t) {
    case ScalarType::Bool: return llvm::ConstantInt::get(type, v != 0.0);
    case ScalarType::Int32:
    case ScalarType::Int64: return llvm::ConstantInt::get(type, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)), true);
    case ScalarType::Float32: return llvm::ConstantFP::get(type, static_cast<double>(static_cast<float>(v)));
    case ScalarType::Float64: return llvm::ConstantFP::get(type, v);
  }
  KILN_CHECK(false, "dtype ", static_cast<int>(t));
}

llvm::Value* IrContext::call_math(const char* name, ScalarType t, llvm::ArrayRef<llvm::Value*> args) {
  KILN_CHECK(is_floating_point(t), name, " on ", t);
  const std::string symbol = t == ScalarType::Float32 ? std::string(name) + "f" : std::string(name);
  llvm::Type* type = value_type(t);
  llvm::SmallVector<llvm::Type*, 2> params(args.size(), type);
  llvm::FunctionCallee callee = module.getOrInsertFunction(symbol, llvm::FunctionType::get(type, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
  }
  llvm::CallInst* call = b.CreateCall(callee, args);
  call->setDoesNotAccessMemory();
  return call;
}

}  // namespace kiln::jit::codegen

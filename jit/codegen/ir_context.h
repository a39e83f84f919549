// What the emitters of one kernel share: the module, the builder, and the
// mapping of kiln dtypes to LLVM types. Private to jit/codegen (LLVM inside).
//
// Register types: bool is i1, int32/int64 are i32/i64 (two's complement,
// arithmetic wraps: no nsw/nuw anywhere), float32/float64 are float/double.
// In memory bool is one byte holding 0 or 1.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <kiln/dtype.h>

namespace kiln::jit::codegen {

class IrContext {
 public:
  IrContext(llvm::Module& module, llvm::IRBuilder<>& builder) : module(module), b(builder) {}

  llvm::Module& module;
  llvm::IRBuilder<>& b;

  llvm::LLVMContext& context() { return module.getContext(); }
  /// The type a value of dtype `t` has in registers (i1 for bool).
  llvm::Type* value_type(ScalarType t);
  /// The type an element of dtype `t` has in memory (i8 for bool).
  llvm::Type* memory_type(ScalarType t);
  /// `v` as a constant of dtype `t` (rounded as static_cast<T>(v)).
  llvm::Constant* constant(ScalarType t, double v);

  /// A call of the C math library function `name` in its float ("expf") or
  /// double ("exp") form, declared as not touching memory (errno ignored) so
  /// that the loop vectorizer may replace it with a libmvec variant.
  llvm::Value* call_math(const char* name, ScalarType t, llvm::ArrayRef<llvm::Value*> args);
};

}  // namespace kiln::jit::codegen

// Dtype conversions in generated code, with the semantics of the tier-0
// kernels (jit/kernels/dtype_dispatch.h `convert`, kiln::Scalar::to).
// Private to jit/codegen (LLVM inside).
//
// One deliberate difference: float -> integer uses llvm.fptosi.sat, which
// is defined everywhere (NaN -> 0, out of range -> the nearest bound) where
// the C++ static_cast of tier 0 is undefined behaviour. In range the results
// are equal (truncation toward zero).
#pragma once

#include <llvm/IR/Value.h>

#include "jit/codegen/ir_context.h"

namespace kiln::jit::codegen {

/// An element converted as a tensor cast does: to bool is "nonzero" (NaN is
/// nonzero), bool is 0/1, integers truncate or sign-extend, float -> int
/// saturates (see above).
llvm::Value* convert(IrContext& ir, llvm::Value* v, ScalarType from, ScalarType to);

/// A run-time scalar (its 64-bit pattern: double bits for Float32/Float64,
/// an int64 otherwise) converted to `to` as Scalar::to<T>() does: a floating
/// scalar goes to an integer through int64, an integral one to a float
/// through double.
llvm::Value* convert_scalar(IrContext& ir, llvm::Value* bits, ScalarType kind, ScalarType to);

}  // namespace kiln::jit::codegen

// Lowering: KernelSpec -> an LLVM module holding one function with the
// CompiledFn ABI. Private to jit/codegen (LLVM inside).
//
// Loop structure (what the loop vectorizer sees), for the three forms of
// KernelSpec (row_dims):
//
//   elementwise, partial: one "row" = the range [begin, end) itself
//   row kernel:           for (r = begin; r < end; ++r) row r over [0, row length)
//
// and within a row, per phase of jit/fusion/kernel_phases.h, one loop over
// the row's elements in pieces along the inner dim (Lowering::loop), whose
// inner loop has constant strides and is vectorized; reductions keep their
// accumulators in registers across it (jit/codegen/emit_reduce.h).
// Row-level values are computed between the loops, row-level outputs stored
// after them; a partial kernel stores its accumulators instead.
//
// Strides are compile-time constants (kernels are specialized on shapes), and
// so are sizes but those of the dynamic dims (spec.dynamic_dims), loaded once
// at entry from after the scalars: the div/mod are by constants unless the
// dim is dynamic, and the inner strides fold either way. A dynamic dim of
// size 0 needs no check: the caller's range is then empty.
#pragma once

#include <memory>
#include <string>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "jit/fusion/kernel_spec.h"

namespace kiln::jit::codegen {

/// The module of `spec`, its kernel function named `name`, with the target
/// triple, data layout, CPU and features of `tm`. Throws InternalError for a
/// malformed spec (codegen::validate) or a dtype an op has no form for.
std::unique_ptr<llvm::Module> lower(const KernelSpec& spec, const std::string& name, llvm::LLVMContext& context,
                                    const llvm::TargetMachine& tm);

}  // namespace kiln::jit::codegen

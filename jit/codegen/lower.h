// Lowering: KernelSpec -> an LLVM module holding one function with the
// CompiledFn ABI. Private to jit/codegen (LLVM inside).
//
// Loop structure (what the loop vectorizer sees):
//
//   for (i = begin; i < end; i += n) {          // one iteration per row piece
//     row = i / inner; col = i % inner;          // inner = sizes[ndim - 1]
//     n = min(inner - col, end - i);
//     off_k = sum_d index_d(row) * stride_k[d] + col * stride_k[inner]
//     (inputs with inner stride 0 are loaded here, once per row)
//     for (j = 0; j < n; ++j)                    // constant strides: vectorized
//       out_k[off_k + j * s_k] = f(in_0[off_0 + j * s_0], ...);
//   }
//
// Strides are compile-time constants (kernels are specialized on shapes), and
// so are sizes but those of the dynamic dims (spec.dynamic_dims), loaded once
// at entry from after the scalars: the div/mod are by constants unless the
// dim is dynamic, and the inner strides fold either way. A dynamic dim of
// size 0 needs no check: the caller's range is then empty. The
// inner loop's loads and stores form one access group declared parallel
// (llvm.loop.parallel_accesses): by the CompiledFn contract iterations never
// share elements, so no run-time overlap checks are needed, and in-place
// kernels vectorize too. Within an iteration all loads precede all stores.
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

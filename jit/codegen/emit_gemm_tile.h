// Lowering of a GEMM micro-kernel (jit/kernels/gemm_tile.h) for one register
// tile: the LLVM module the tuner's generated tiles are compiled from.
// Private to jit/codegen (LLVM inside).
//
// The function has GemmMicroFn's signature. Its loop over the depth keeps the
// mr × nv accumulators in vector registers: per step, nv vector loads of B,
// mr broadcasts of A and mr × nv fused multiply-adds, the same order of
// operations per element of C as the hand-written kernel, so both give
// identical results. After the loop a full tile with contiguous rows is
// stored as vectors; an edge tile or a strided C goes element by element.
#pragma once

#include <memory>
#include <string>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "jit/kernels/gemm_tile.h"

namespace kiln::jit::codegen {

/// The module of the micro-kernel of `spec`, its function named `name`, for
/// the target of `tm`. Throws ValueError for a tile that does not fit.
std::unique_ptr<llvm::Module> lower_gemm_tile(const kernels::GemmTileSpec& spec, const std::string& name,
                                              llvm::LLVMContext& context, const llvm::TargetMachine& tm);

}  // namespace kiln::jit::codegen

// Vector math for the loop vectorizer. LLVM 19 vectorizes a loop only if
// every call in it has a vector variant, and its built-in libmvec list lacks
// tanh and the 16-wide forms, so a fused GELU would stay scalar. This maps
// the libm functions the emitters call (and the matching llvm.* intrinsics)
// to glibc libmvec's variants for the ISA levels the target has:
//   AVX-512 `_ZGVeN16v_expf` / `_ZGVeN8v_exp`, AVX2 `_ZGVdN8v_expf` /
//   `_ZGVdN4v_exp`, SSE `_ZGVbN4v_expf` / `_ZGVbN2v_exp` (all unmasked).
// libmvec's functions are accurate to 4 ulp; the JIT resolves them from
// libmvec.so.1 (jit/orc/kernel_jit.cpp). Private to jit/codegen.
#pragma once

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Target/TargetMachine.h>

namespace kiln::jit::codegen {

/// The TargetLibraryInfoImpl for `tm`'s triple, with the libmvec mappings of
/// the ISA levels in `tm`'s feature string.
llvm::TargetLibraryInfoImpl library_info(const llvm::TargetMachine& tm);

/// Whether `tm` generates code with `feature` ("+avx512f"), from its CPU or
/// its feature string.
bool has_target_feature(const llvm::TargetMachine& tm, llvm::StringRef feature);

}  // namespace kiln::jit::codegen

// The compile pipeline of one fused elementwise kernel, as a script of
// passes in order (compile_pipeline.cpp reads top to bottom):
//
//   lower     KernelSpec -> LLVM module            jit/codegen/lower.h
//             (or a GEMM tile)                     jit/codegen/emit_gemm_tile.h
//   verify    LLVM's IR verifier                     jit/codegen/verify.h
//   optimize  O1 or O3, vectorized, libmvec          jit/codegen/optimize.h
//   emit      module -> object file                  jit/codegen/emit_object.h
//   link      object -> callable kernel (ORC)        jit/orc/kernel_jit.h
//
// After each pass a dump hook writes the stage's text when asked:
// KILN_DUMP=spec,ir,opt,asm (comma list, or "all") writes
// kiln_<key as 16 hex digits>_<stage>.txt into KILN_DUMP_DIR (default: the
// current directory). No policy here: no hotness, no caching decisions.
#pragma once

#include <cstdint>
#include <string>

#include "jit/fusion/kernel_spec.h"
#include "jit/kernels/gemm_tile.h"
#include "jit/orc/session.h"

namespace kiln::jit {

class KernelJit;

/// Runs the pipeline on `spec`. Throws InternalError naming the failing pass.
CompiledKernel compile_kernel(const KernelSpec& spec, const CompileOptions& options, KernelJit& jit);

/// Lowers (jit/codegen/emit_gemm_tile.h) and compiles the GEMM micro-kernel
/// of `spec` at opt level 3, through the same passes after lowering, as
/// kernel_symbol(gemm_tile_key(spec), 3): dumps, the disk cache and
/// OrcSession::load_object treat it like any kernel of that key.
CompiledKernel compile_gemm_tile(const kernels::GemmTileSpec& spec, KernelJit& jit);
/// The key of a tile: a hash of "gemm_tile/f32/v32/6x2" (element bits,
/// vector bytes, mr x nv), apart from every KernelSpec key.
std::uint64_t gemm_tile_key(const kernels::GemmTileSpec& spec);

/// The kernel's function name, "kiln_k_<key as 16 hex digits>_o<opt level>".
std::string kernel_symbol(std::uint64_t key, int opt_level);
/// What every kernel_symbol of `key` starts with ("kiln_k_<hex>_").
std::string kernel_symbol_prefix(std::uint64_t key);

}  // namespace kiln::jit

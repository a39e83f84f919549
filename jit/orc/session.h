// OrcSession: the process's native-code JIT, as the rest of kiln sees it.
// No LLVM types here (the LLJIT and everything LLVM live behind a pimpl in
// session.cpp and jit/orc/kernel_jit.h); LLVM failures arrive as
// kiln::InternalError. No policy either: what to compile, when, and what
// to cache are the caller's decisions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "jit/fusion/kernel_spec.h"
#include "jit/kernels/gemm_tile.h"

namespace kiln::jit {

struct CompileOptions {
  /// 1: quick (LLVM's O1 IR pipeline, codegen at O0), for the first compile;
  /// 3: best (O3 IR pipeline, aggressive codegen), for kernels that stay hot.
  /// Both vectorize with libmvec. Measured: about half the compile time at
  /// 1; same speed when memory-bound, about 1.4x slower in cache.
  int opt_level = 1;
};

class KernelCode;

/// A kernel's entry point and the owner of its code: the code is removed
/// from the session when the last copy of `code` goes, so whoever calls
/// `fn` must hold `code` (or something that holds it) meanwhile.
struct LinkedKernel {
  CompiledFn fn = nullptr;
  std::shared_ptr<const KernelCode> code;
};

struct CompiledKernel : LinkedKernel {
  double compile_ms = 0;  // lower + verify + optimize + emit + link, wall time
  std::string object;     // the linked object file, for the disk cache
};

class KernelJit;

/// One per process. compile() and load_object() may be called from any
/// thread, concurrently. The session keeps no object bytes and no code of
/// its own: each kernel's code lives as long as its LinkedKernel::code.
class OrcSession {
 public:
  /// The session, created on first use with the host's CPU and features (so
  /// kernels use AVX-512/AVX2/SSE as the machine has). Throws InternalError
  /// if the JIT cannot be set up. Never destroyed (compiled code stays valid
  /// until the process exits).
  static OrcSession& instance();

  /// Lowers, optimizes and JIT-links `spec` (jit/compile_pipeline.h); throws
  /// kiln::InternalError with the LLVM message on any failure (malformed
  /// spec, verifier, codegen, link) — the caller keeps the kernel on tier 0.
  CompiledKernel compile(const KernelSpec& spec, const CompileOptions& options);

  /// Compiles the GEMM micro-kernel of `spec` (jit/kernels/gemm_tile.h);
  /// its `fn` is a kernels::GemmMicroFn. Throws InternalError on failure.
  CompiledKernel compile_gemm_tile(const kernels::GemmTileSpec& spec);

  /// Links object bytes of a compile of `key` (CompiledKernel::object, of
  /// this or an earlier process on the same CPU) and returns the kernel in
  /// them; throws InternalError for bytes that are not such an object.
  LinkedKernel load_object(std::uint64_t key, std::string_view object_bytes);


  /// The host CPU LLVM generates code for ("znver4") and its feature string
  /// ("+avx512f,+avx2,...", sorted): part of the disk cache's key.
  std::string host_cpu() const;
  std::string host_features() const;

  OrcSession(const OrcSession&) = delete;
  OrcSession& operator=(const OrcSession&) = delete;

 private:
  OrcSession();
  ~OrcSession();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln::jit

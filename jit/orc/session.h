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

namespace kiln::jit {

struct CompileOptions {
  /// 1: quick (LLVM's O1 IR pipeline, codegen at O0), for the first compile;
  /// 3: best (O3 IR pipeline, aggressive codegen), for kernels that stay hot.
  /// Both vectorize with libmvec. Measured: about half the compile time at
  /// 1; same speed when memory-bound, about 1.4x slower in cache.
  int opt_level = 1;
};

struct CompiledKernel {
  CompiledFn fn = nullptr;
  double compile_ms = 0;         // lower + verify + optimize + emit + link, wall time
  std::size_t object_bytes = 0;  // size of the object file (what object_for returns)
};

class KernelJit;

/// One per process. compile() and load_object() may be called from any
/// thread, concurrently. Compiled code is never removed: a kernel may be
/// running on another thread at any time.
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

  /// The object file of the last compile of `key` (for the on-disk cache);
  /// empty if `key` was never compiled in this process.
  std::string object_for(std::uint64_t key) const;

  /// Links object bytes from object_for (of this or an earlier process on
  /// the same CPU) and returns the kernel of `key` in it; throws
  /// InternalError for bytes that are not such an object.
  CompiledFn load_object(std::uint64_t key, std::string_view object_bytes);

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

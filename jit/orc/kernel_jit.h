// KernelJit: the LLJIT wrapper, KaleidoscopeJIT-sized: create, target
// machines for codegen, link an object, look a symbol up. Private to
// jit/orc and jit/compile_pipeline.cpp (LLVM inside).
//
// Every object is linked into a JITDylib of its own, so the same kernel may
// be linked twice (a recompile, a reload from the disk cache) without
// duplicate-definition errors. Each such JITDylib links against the
// process's symbols, libmvec.so.1 and libm.so.6 (each if present). Its code
// lives as long as the KernelCode that link() returns.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Target/TargetMachine.h>

#include "jit/fusion/kernel_spec.h"
#include "jit/orc/session.h"

namespace kiln::jit {

/// The linked code of one object: destroying it removes the code from the
/// session (its ResourceTracker, then its JITDylib). Whoever holds it must
/// know that no thread can still be running the code.
class KernelCode {
 public:
  KernelCode(llvm::orc::LLJIT& jit, llvm::orc::JITDylib& dylib, llvm::orc::ResourceTrackerSP tracker);
  ~KernelCode();
  KernelCode(const KernelCode&) = delete;
  KernelCode& operator=(const KernelCode&) = delete;

 private:
  llvm::orc::LLJIT& jit_;
  llvm::orc::JITDylib& dylib_;
  llvm::orc::ResourceTrackerSP tracker_;
};

class KernelJit {
 public:
  /// The JIT for the host CPU. Throws InternalError on failure.
  static std::unique_ptr<KernelJit> create();

  /// A new TargetMachine for the host (one per compile: TargetMachines are
  /// not thread-safe); opt_level 3 gives aggressive codegen, else the
  /// fastest (FastISel, fast register allocation).
  std::unique_ptr<llvm::TargetMachine> target_machine(int opt_level) const;

  /// Links `object` into a new JITDylib and returns the address of `symbol`
  /// in it, with the code's owner. Throws InternalError (bad object,
  /// unresolved symbol, ...).
  LinkedKernel link(std::string_view object, const std::string& symbol);

  /// The name of the first defined function in `object` whose name starts
  /// with `prefix`, or InternalError if `object` is not an object file or has
  /// none.
  static std::string find_function(std::string_view object, std::string_view prefix);

  /// Whether libmvec.so.1 was found: without it the optimizer must not map
  /// math calls to vector variants (they would not link).
  bool has_vector_math() const { return vector_math_; }

  const std::string& cpu() const { return cpu_; }
  const std::string& features() const { return features_; }

 private:
  KernelJit(llvm::orc::JITTargetMachineBuilder host, std::unique_ptr<llvm::orc::LLJIT> jit, bool vector_math);

  llvm::orc::JITTargetMachineBuilder host_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::string cpu_, features_;
  bool vector_math_;
  std::atomic<std::uint64_t> dylibs_{0};
};

}  // namespace kiln::jit

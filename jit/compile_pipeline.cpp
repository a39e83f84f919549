#include "jit/compile_pipeline.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string_view>

#include <xxhash.h>

#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <kiln/error.h>

#include "jit/codegen/emit_gemm_tile.h"
#include "jit/codegen/emit_object.h"
#include "jit/codegen/lower.h"
#include "jit/codegen/optimize.h"
#include "jit/codegen/verify.h"
#include "jit/orc/kernel_jit.h"
#include "profiler/dump_target.h"

namespace kiln::jit {
namespace {

std::string hex16(std::uint64_t key) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(key));
  return text;
}

// KILN_DUMP / KILN_DUMP_DIR (kiln::set_dump), taken once per compile. The
// text of a stage is produced only if that stage is asked for.
class DumpHook {
 public:
  explicit DumpHook(std::uint64_t key) : key_(key), target_(profiler::dump_target()) {}

  template <class MakeText>
  void operator()(std::string_view stage, MakeText&& make_text) const {
    if (!profiler::dumps_stage(target_.stages, stage)) return;
    std::string path = target_.dir;
    path.append("/kiln_").append(hex16(key_)).append("_").append(stage).append(".txt");
    std::ofstream(path) << make_text();
  }

 private:
  std::uint64_t key_;
  profiler::DumpTarget target_;
};

// LLVM reports some problems (and its warnings and optimization remarks)
// through the context's diagnostic handler, whose default prints them and
// exits on errors. Errors are kept here and thrown after the pass;
// everything else is dropped.
struct Diagnostics {
  std::string errors;

  void install(llvm::LLVMContext& context) {
    context.setDiagnosticHandlerCallBack(
        [](const llvm::DiagnosticInfo* info, void* self) {
          if (info->getSeverity() != llvm::DS_Error) return;
          std::string text;
          llvm::raw_string_ostream out(text);
          llvm::DiagnosticPrinterRawOStream printer(out);
          info->print(printer);
          static_cast<Diagnostics*>(self)->errors += text + "\n";
        },
        this);
  }
  void check(const char* pass) const {
    if (!errors.empty()) throw InternalError(detail::cat("[jit] ", pass, ": ", errors));
  }
};

std::string print(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream out(text);
  module.print(out, nullptr);
  return text;
}

}  // namespace

std::string kernel_symbol_prefix(std::uint64_t key) { return "kiln_k_" + hex16(key) + "_"; }

std::string kernel_symbol(std::uint64_t key, int opt_level) {
  return kernel_symbol_prefix(key) + "o" + std::to_string(opt_level);
}

namespace {

// The passes after lowering, the same for every kind of kernel: `lower`
// builds the module (given the context and target machine), then verify,
// optimize, emit and link `symbol`.
template <class Lower>
CompiledKernel run_pipeline(const std::string& symbol, int level, const DumpHook& dump, KernelJit& jit,
                            Lower&& lower) {
  const auto start = std::chrono::steady_clock::now();
  CompiledKernel result;
  Diagnostics diagnostics;
  llvm::LLVMContext context;
  diagnostics.install(context);
  const std::unique_ptr<llvm::TargetMachine> tm = jit.target_machine(level);

  std::unique_ptr<llvm::Module> module = lower(context, *tm);
  dump("ir", [&] { return print(*module); });

  diagnostics.check("lower");
  codegen::verify(*module);

  codegen::optimize(*module, *tm, level, jit.has_vector_math());
  diagnostics.check("optimize");
  dump("opt", [&] { return print(*module); });
  dump("asm", [&] { return codegen::emit_assembly(*module, *tm); });

  result.object = codegen::emit_object(*module, *tm);
  diagnostics.check("emit");

  static_cast<LinkedKernel&>(result) = jit.link(result.object, symbol);
  result.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

CompiledKernel compile_kernel(const KernelSpec& spec, const CompileOptions& options, KernelJit& jit) {
  const int level = options.opt_level >= 3 ? 3 : 1;
  const std::uint64_t key = spec.key();
  const std::string symbol = kernel_symbol(key, level);
  const DumpHook dump(key);
  dump("spec", [&] { return spec.to_string(); });
  return run_pipeline(symbol, level, dump, jit, [&](llvm::LLVMContext& context, llvm::TargetMachine& tm) {
    return codegen::lower(spec, symbol, context, tm);
  });
}

std::uint64_t gemm_tile_key(const kernels::GemmTileSpec& spec) {
  const std::string name = "gemm_tile/f" + std::to_string(8 * spec.element_bytes) + "/v" +
                           std::to_string(spec.vector_bytes) + "/" + std::to_string(spec.mr) + "x" +
                           std::to_string(spec.nv);
  return XXH3_64bits(name.data(), name.size());
}

CompiledKernel compile_gemm_tile(const kernels::GemmTileSpec& spec, KernelJit& jit) {
  const std::uint64_t key = gemm_tile_key(spec);
  const std::string symbol = kernel_symbol(key, 3);
  return run_pipeline(symbol, 3, DumpHook(key), jit, [&](llvm::LLVMContext& context, llvm::TargetMachine& tm) {
    return codegen::lower_gemm_tile(spec, symbol, context, tm);
  });
}

}  // namespace kiln::jit

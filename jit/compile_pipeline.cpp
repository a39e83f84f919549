#include "jit/compile_pipeline.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string_view>

#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <kiln/error.h>

#include "jit/codegen/emit_object.h"
#include "jit/codegen/lower.h"
#include "jit/codegen/optimize.h"
#include "jit/codegen/verify.h"
#include "jit/orc/kernel_jit.h"

namespace kiln::jit {
namespace {

std::string hex16(std::uint64_t key) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(key));
  return text;
}

// Whether the comma list `list` names `item` (or "all").
bool listed(std::string_view list, std::string_view item) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view head = list.substr(0, comma);
    if (head == item || head == "all") return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

// KILN_DUMP / KILN_DUMP_DIR, read once per compile. The text of a stage is
// produced only if that stage is asked for.
class DumpHook {
 public:
  explicit DumpHook(std::uint64_t key) : key_(key) {
    const char* stages = std::getenv("KILN_DUMP");
    const char* dir = std::getenv("KILN_DUMP_DIR");
    if (stages) stages_ = stages;
    if (dir && *dir) dir_ = dir;
  }

  template <class MakeText>
  void operator()(std::string_view stage, MakeText&& make_text) const {
    if (!listed(stages_, stage)) return;
    std::string path = dir_;
    path.append("/kiln_").append(hex16(key_)).append("_").append(stage).append(".txt");
    std::ofstream(path) << make_text();
  }

 private:
  std::uint64_t key_;
  std::string stages_;
  std::string dir_ = ".";
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

CompiledKernel compile_kernel(const KernelSpec& spec, const CompileOptions& options, KernelJit& jit) {
  const auto start = std::chrono::steady_clock::now();
  const int level = options.opt_level >= 3 ? 3 : 1;
  const std::uint64_t key = spec.key();
  CompiledKernel result;
  const std::string symbol = kernel_symbol(key, level);
  const DumpHook dump(key);
  dump("spec", [&] { return spec.to_string(); });

  Diagnostics diagnostics;
  llvm::LLVMContext context;
  diagnostics.install(context);
  const std::unique_ptr<llvm::TargetMachine> tm = jit.target_machine(level);

  std::unique_ptr<llvm::Module> module = codegen::lower(spec, symbol, context, *tm);
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

}  // namespace kiln::jit

#include "jit/orc/kernel_jit.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>

#include "jit/codegen/llvm_error.h"
#include "jit/orc/perf_map.h"
#include "profiler/dump_target.h"
#include "profiler/jit_counters.h"

namespace kiln::jit {
namespace {

// Host features as "+a,+b,-c", sorted, so that the string is stable.
std::string sorted_features(const llvm::SubtargetFeatures& features) {
  std::vector<std::string> list = features.getFeatures();
  std::sort(list.begin(), list.end());
  std::string out;
  for (const std::string& f : list) out += (out.empty() ? "" : ",") + f;
  return out;
}

}  // namespace

KernelCode::KernelCode(llvm::orc::LLJIT& jit, llvm::orc::JITDylib& dylib, llvm::orc::ResourceTrackerSP tracker)
    : jit_(jit), dylib_(dylib), tracker_(std::move(tracker)) {
  profiler::add_kernels_resident(1);
}

// Errors here can only mean the code is gone already; nothing to report.
KernelCode::~KernelCode() {
  llvm::consumeError(tracker_->remove());
  llvm::consumeError(jit_.getExecutionSession().removeJITDylib(dylib_));
  profiler::add_kernels_resident(-1);
}

KernelJit::KernelJit(llvm::orc::JITTargetMachineBuilder host, std::unique_ptr<llvm::orc::LLJIT> jit,
                     bool vector_math)
    : host_(std::move(host)), jit_(std::move(jit)), cpu_(host_.getCPU()),
      features_(sorted_features(host_.getFeatures())), vector_math_(vector_math) {}

std::unique_ptr<KernelJit> KernelJit::create() {
  static std::once_flag targets;
  std::call_once(targets, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
  auto host = unwrap(llvm::orc::JITTargetMachineBuilder::detectHost(), "detecting the host CPU");
  auto jit = unwrap(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(host).create(), "creating the LLJIT");
  // Failures also come back from lookup() with their message; keep stderr quiet.
  jit->getExecutionSession().setErrorReporter([](llvm::Error error) { llvm::consumeError(std::move(error)); });

  // The process's symbols are searched already; add the math libraries. A
  // system without libmvec still compiles, with scalar math calls.
  llvm::orc::JITDylibSP runtime = jit->getProcessSymbolsJITDylib();
  KILN_CHECK(runtime != nullptr, "LLJIT without a process-symbols JITDylib");
  const char prefix = jit->getDataLayout().getGlobalPrefix();
  bool vector_math = false;
  for (const char* library : {"libmvec.so.1", "libm.so.6"}) {
    auto generator = llvm::orc::DynamicLibrarySearchGenerator::Load(library, prefix);
    if (!generator) {
      llvm::consumeError(generator.takeError());
      continue;
    }
    runtime->addGenerator(std::move(*generator));
    vector_math |= llvm::StringRef(library) == "libmvec.so.1";
  }
  return std::unique_ptr<KernelJit>(new KernelJit(std::move(host), std::move(jit), vector_math));
}

std::unique_ptr<llvm::TargetMachine> KernelJit::target_machine(int opt_level) const {
  llvm::orc::JITTargetMachineBuilder builder = host_;
  // O1 is the quick first tier: fast instruction selection and register
  // allocation halve its compile time; its code is as fast on memory-bound
  // kernels and about 1.4x slower on compute-bound ones than O3's.
  builder.setCodeGenOptLevel(opt_level >= 3 ? llvm::CodeGenOptLevel::Aggressive : llvm::CodeGenOptLevel::None);
  return unwrap(builder.createTargetMachine(), "creating a target machine");
}

LinkedKernel KernelJit::link(std::string_view object, const std::string& symbol) {
  const std::string dylib = "kiln." + std::to_string(dylibs_.fetch_add(1)) + "." + symbol;
  llvm::orc::JITDylib& jd = unwrap(jit_->createJITDylib(dylib), "creating a JITDylib");
  // Owned from here on: a failure below removes the JITDylib again.
  llvm::orc::ResourceTrackerSP tracker = jd.createResourceTracker();
  auto code = std::make_shared<const KernelCode>(*jit_, jd, tracker);
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object.data(), object.size()), symbol);
  check(jit_->addObjectFile(tracker, std::move(buffer)), "adding the object file");
  const llvm::orc::ExecutorAddr address = unwrap(jit_->lookup(jd, symbol), "linking the kernel");
  if (profiler::dumps_stage(profiler::dump_target().stages, "perf"))
    add_to_perf_map(object, symbol, address.getValue());
  return {address.toPtr<CompiledFn>(), std::move(code)};
}

std::string KernelJit::find_function(std::string_view object, std::string_view prefix) {
  const llvm::MemoryBufferRef ref(llvm::StringRef(object.data(), object.size()), "kernel object");
  auto file = unwrap(llvm::object::ObjectFile::createObjectFile(ref), "reading the object file");
  for (const llvm::object::SymbolRef& symbol : file->symbols()) {
    auto flags = symbol.getFlags();
    auto type = symbol.getType();
    auto name = symbol.getName();
    if (!flags || !type || !name) {
      llvm::consumeError(flags.takeError());
      llvm::consumeError(type.takeError());
      llvm::consumeError(name.takeError());
      continue;
    }
    const bool defined = !(*flags & llvm::object::SymbolRef::SF_Undefined);
    if (defined && *type == llvm::object::SymbolRef::ST_Function && name->starts_with(prefix)) return name->str();
  }
  throw InternalError(detail::cat("[jit] the object file defines no function ", prefix, "..."));
}

}  // namespace kiln::jit

#include "jit/symbolizer.h"

#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <string>

#include <llvm/DebugInfo/Symbolize/Symbolize.h>

namespace kiln::jit {
namespace {

struct Module {
  std::string path;
  std::uintptr_t load_bias = 0;
};

// The loaded object whose segments hold `address`, and where it was loaded.
bool find_module(std::uintptr_t address, Module& out) {
  struct Search {
    std::uintptr_t address;
    Module* out;
    bool found = false;
  } search{address, &out};
  dl_iterate_phdr(
      [](dl_phdr_info* object, std::size_t, void* data) {
        auto& s = *static_cast<Search*>(data);
        for (int i = 0; i < object->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = object->dlpi_phdr[i];
          const std::uintptr_t begin = object->dlpi_addr + ph.p_vaddr;
          if (ph.p_type != PT_LOAD || s.address < begin || s.address >= begin + ph.p_memsz) continue;
          s.out->path = object->dlpi_name ? object->dlpi_name : "";
          s.out->load_bias = object->dlpi_addr;
          s.found = true;
          return 1;
        }
        return 0;
      },
      &search);
  if (search.found && out.path.empty()) {  // the main program
    char path[4096];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return false;
    out.path.assign(path, static_cast<std::size_t>(n));
  }
  return search.found;
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

bool symbolize(std::uintptr_t return_address, profiler::SourceLocation& out) {
  Module module;
  if (return_address == 0 || !find_module(return_address, module)) return false;
  // The symbolizer caches parsed objects and is not thread-safe; it lives
  // as long as the process (reports are printed at exit).
  static std::mutex mu;
  static auto* symbolizer = new llvm::symbolize::LLVMSymbolizer;
  std::lock_guard lock(mu);
  // The call instruction ends just before the return address.
  const llvm::object::SectionedAddress offset{return_address - 1 - module.load_bias,
                                              llvm::object::SectionedAddress::UndefSection};
  llvm::Expected<llvm::DIInliningInfo> frames = symbolizer->symbolizeInlinedCode(module.path, offset);
  if (!frames) {
    llvm::consumeError(frames.takeError());
    return false;
  }
  if (frames->getNumberOfFrames() == 0) return false;
  const llvm::DILineInfo& innermost = frames->getFrame(0);
  const bool has_function = innermost.FunctionName != llvm::DILineInfo::BadString;
  const bool has_line = innermost.FileName != llvm::DILineInfo::BadString && innermost.Line != 0;
  if (!has_function && !has_line) return false;
  if (has_function) out.function = innermost.FunctionName;
  if (has_line) {
    out.file = innermost.FileName;
    out.line = innermost.Line;
    out.text = base_name(out.file) + ":" + std::to_string(out.line);
    if (has_function) out.text += " (" + out.function + ")";
  } else {
    char offset_text[32];
    std::snprintf(offset_text, sizeof offset_text, "+0x%zx", static_cast<std::size_t>(offset.Address));
    out.text = out.function + " (" + base_name(module.path) + offset_text + ")";
  }
  return true;
}

}  // namespace kiln::jit

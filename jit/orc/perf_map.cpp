#include "jit/orc/perf_map.h"

#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <mutex>

#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

namespace kiln::jit {
namespace {

// The bytes from `symbol` to the end of its section in `object`, 0 if it
// defines no such symbol (or is no object file). The symbol's own size
// field reads 0 in kiln's kernel objects (jit/codegen/emit_object.cpp);
// a kernel object has one function in its text section, so the section's
// end is the function's end.
std::uint64_t symbol_size(std::string_view object, const std::string& symbol) {
  const llvm::MemoryBufferRef ref(llvm::StringRef(object.data(), object.size()), "kernel object");
  auto file = llvm::object::ObjectFile::createObjectFile(ref);
  if (!file) {
    llvm::consumeError(file.takeError());
    return 0;
  }
  for (const llvm::object::SymbolRef& sym : (*file)->symbols()) {
    auto name = sym.getName();
    auto section = sym.getSection();
    auto address = sym.getAddress();
    if (!name || !section || !address || *name != symbol || *section == (*file)->section_end()) {
      if (!name) llvm::consumeError(name.takeError());
      if (!section) llvm::consumeError(section.takeError());
      if (!address) llvm::consumeError(address.takeError());
      continue;
    }
    const std::uint64_t begin = (*section)->getAddress(), end = begin + (*section)->getSize();
    return *address >= begin && *address < end ? end - *address : 0;
  }
  return 0;
}

}  // namespace

std::string perf_map_path() { return "/tmp/perf-" + std::to_string(::getpid()) + ".map"; }

void add_to_perf_map(std::string_view object, const std::string& symbol, std::uint64_t address) {
  const std::uint64_t size = symbol_size(object, symbol);
  if (size == 0) return;
  // Kernels link on several compile threads; one line at a time.
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  if (std::FILE* map = std::fopen(perf_map_path().c_str(), "a")) {
    std::fprintf(map, "%" PRIx64 " %" PRIx64 " %s\n", address, size, symbol.c_str());
    std::fclose(map);
  }
}

}  // namespace kiln::jit

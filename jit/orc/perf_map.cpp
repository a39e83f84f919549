#include "jit/orc/perf_map.h"

#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <mutex>

#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

namespace kiln::jit {
namespace {

// The bytes from `symbol`'s definition to the end of its section in
// `object`, 0 if it defines no such symbol (or is no object file). A
// kernel object has one function in its text section, so the section's end
// is the function's end; llvm::object::computeSymbolSizes gave 0 for
// kiln's kernels (it took the entry outside any section, below).
std::uint64_t symbol_size(std::string_view object, const std::string& symbol) {
  const llvm::MemoryBufferRef ref(llvm::StringRef(object.data(), object.size()), "kernel object");
  auto file = llvm::object::ObjectFile::createObjectFile(ref);
  if (!file) {
    llvm::consumeError(file.takeError());
    return 0;
  }
  for (const llvm::object::SymbolRef& sym : (*file)->symbols()) {
    auto name = sym.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (*name != symbol) continue;
    auto section = sym.getSection();
    auto address = sym.getAddress();
    // The name comes twice in kiln's objects: first an entry outside any
    // section, then the definition in the text section, which is the one.
    if (!section || !address || *section == (*file)->section_end()) {
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

#include "profiler/call_site.h"

#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>

#include <atomic>
#include <cstdio>
#include <cstring>

namespace kiln::profiler {
namespace detail {
thread_local std::uintptr_t t_caller __attribute__((tls_model("initial-exec"))) = 0;
}

namespace {

struct CodeRange {
  std::uintptr_t begin = 0, end = 0;
};

// The executable segments of the object holding this very function: libkiln.so.
CodeRange find_kiln_range() {
  struct Search {
    std::uintptr_t probe;
    CodeRange range;
  } search{reinterpret_cast<std::uintptr_t>(&find_kiln_range), {}};
  dl_iterate_phdr(
      [](dl_phdr_info* object, std::size_t, void* data) {
        auto& s = *static_cast<Search*>(data);
        CodeRange code;
        bool holds_probe = false;
        for (int i = 0; i < object->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = object->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
          const std::uintptr_t begin = object->dlpi_addr + ph.p_vaddr, end = begin + ph.p_memsz;
          holds_probe = holds_probe || (s.probe >= begin && s.probe < end);
          if (code.begin == 0 || begin < code.begin) code.begin = begin;
          if (end > code.end) code.end = end;
        }
        if (!holds_probe) return 0;
        s.range = code;
        return 1;  // found: stop iterating
      },
      &search);
  return search.range;
}

const CodeRange& kiln_range() {
  static const CodeRange range = find_kiln_range();
  return range;
}

std::atomic<Symbolizer> g_symbolizer{nullptr};

// libunwind initializes its globals (a signal mask among them) on first
// use, under its own lock but read without it; doing that once while
// libkiln loads, before any thread of the program can unwind, orders it
// before every later read (ThreadSanitizer reports it otherwise).
const bool g_unwinder_ready = [] {
  unw_context_t context;
  unw_cursor_t cursor;
  return unw_getcontext(&context) == 0 && unw_init_local(&cursor, &context) == 0;
}();

}  // namespace

bool in_kiln(std::uintptr_t address) noexcept {
  const CodeRange& r = kiln_range();
  return address >= r.begin && address < r.end;
}

std::uintptr_t user_frame() noexcept {
  if (const std::uintptr_t hint = detail::t_caller; hint != 0 && !in_kiln(hint)) return hint;
  // unw_step rather than unw_backtrace: the latter keeps a per-thread cache
  // whose destructor runs at thread exit, after ThreadSanitizer has torn the
  // thread down (a crash in every TSan run that cuts deep inside kiln).
  unw_context_t context;
  unw_cursor_t cursor;
  if (unw_getcontext(&context) != 0 || unw_init_local(&cursor, &context) != 0) return 0;
  for (int depth = 0; depth < 64 && unw_step(&cursor) > 0; ++depth) {
    unw_word_t ip = 0;
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0) return 0;
    if (!in_kiln(ip)) return ip;
  }
  return 0;
}

void set_symbolizer(Symbolizer symbolizer) noexcept { g_symbolizer.store(symbolizer); }

SourceLocation describe(std::uintptr_t return_address) {
  SourceLocation where;
  if (return_address == 0) {
    where.text = "(unknown)";
    return where;
  }
  if (Symbolizer s = g_symbolizer.load(); s && s(return_address, where) && !where.text.empty()) return where;
  char text[64];
  std::snprintf(text, sizeof text, "0x%zx", static_cast<std::size_t>(return_address));
  where.text = text;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(return_address), &info) == 0) return where;
  const char* object = info.dli_fname ? std::strrchr(info.dli_fname, '/') : nullptr;
  object = object ? object + 1 : (info.dli_fname ? info.dli_fname : "?");
  if (info.dli_sname) {
    where.function = info.dli_sname;
    std::snprintf(text, sizeof text, "+0x%zx (",
                  static_cast<std::size_t>(return_address - reinterpret_cast<std::uintptr_t>(info.dli_saddr)));
    where.text = where.function + text + object + ")";
  } else {
    where.text += std::string(" (") + object + ")";
  }
  return where;
}

}  // namespace kiln::profiler

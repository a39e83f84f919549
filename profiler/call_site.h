// Call sites: which instruction of the user's program caused a segment cut.
//
// Capture is cheap and happens only at cuts: the public entry points that
// cut (item(), data_ptr(), printing, kiln::sync(), ...) are out-of-line
// functions of libkiln, so their return address is already the user's
// frame; they hand it down with a CallerScope. Cuts deeper inside kiln (op
// limit, another thread's buffer, borrowed memory) unwind with libunwind and
// take the first frame outside libkiln, found by address range, not by name.
// Symbolizing (function, file:line) is lazy, off the hot path, through a
// symbolizer the JIT layer registers (LLVM stays in jit/); without one, or
// without debug info, a site reads "symbol+0xoffset (object)".
#pragma once

#include <cstdint>
#include <string>

namespace kiln::profiler {

namespace detail {
extern thread_local std::uintptr_t t_caller __attribute__((tls_model("initial-exec")));
}

/// Marks `return_address` (the caller of a public entry point) as the user's
/// frame for the cuts made until the scope ends. The outermost scope wins, so
/// an entry point calling another keeps the user's address.
class CallerScope {
 public:
  explicit CallerScope(const void* return_address) noexcept
      : owner_(detail::t_caller == 0) {
    if (owner_) detail::t_caller = reinterpret_cast<std::uintptr_t>(return_address);
  }
  ~CallerScope() {
    if (owner_) detail::t_caller = 0;
  }
  CallerScope(const CallerScope&) = delete;
  CallerScope& operator=(const CallerScope&) = delete;

 private:
  bool owner_;
};

/// True when `address` lies in libkiln's own code.
bool in_kiln(std::uintptr_t address) noexcept;

/// The user's return address for a cut made now: the CallerScope's if it
/// lies outside libkiln, else the first frame outside libkiln on the stack
/// (libunwind). 0 when there is none (e.g. a thread's exit).
std::uintptr_t user_frame() noexcept;

/// What a code address is in the user's source.
struct SourceLocation {
  std::string function;
  std::string file;  // empty without debug info
  std::uint32_t line = 0;
  std::string text;  // "file:line (function)", or "symbol+0x1f (object)", or "0x7f..."
};

/// Fills `out` for the instruction that returns to `return_address`; false
/// when the address is unknown to it. Registered by a higher layer.
using Symbolizer = bool (*)(std::uintptr_t return_address, SourceLocation& out);
void set_symbolizer(Symbolizer symbolizer) noexcept;

/// Symbolizes with the registered symbolizer, else from the dynamic symbol
/// table (dladdr). Slow: call off the hot path, and cache.
SourceLocation describe(std::uintptr_t return_address);

}  // namespace kiln::profiler

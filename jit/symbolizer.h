// Turns code addresses of the user's program into function and file:line,
// with LLVM's symbolizer (DWARF line tables where the program has them,
// else its symbol table). It lives in jit/ because LLVM does; the frontend
// registers it with the profiler, which calls it lazily, off the hot path.
#pragma once

#include <cstdint>

#include "profiler/call_site.h"

namespace kiln::jit {

/// A profiler::Symbolizer: describes the call instruction that returns to
/// `return_address`. False when the address is in no loaded object, or the
/// object has no symbol for it.
bool symbolize(std::uintptr_t return_address, profiler::SourceLocation& out);

}  // namespace kiln::jit

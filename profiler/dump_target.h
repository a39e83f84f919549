// Which compile stages of each kernel are written to files, and where
// (KILN_DUMP, KILN_DUMP_DIR; kiln::set_dump). Kept here, below the JIT that
// writes the files, because the stats snapshot records it too: `kiln
// explain` points at the files.
#pragma once

#include <string>
#include <string_view>

namespace kiln::profiler {

struct DumpTarget {
  std::string stages;     // comma list of spec, ir, opt, asm, perf, or "all"; "" for none
  std::string dir = ".";  // where the files go
};

/// The current target: the variables as read when libkiln loaded, until
/// set_dump_target.
DumpTarget dump_target();
/// Replaces it; `stages` must be a valid list (kiln::ValueError otherwise).
void set_dump_target(const std::string& stages, const std::string& dir);

/// Whether the comma list `stages` names `stage` (or "all").
bool dumps_stage(std::string_view stages, std::string_view stage);

}  // namespace kiln::profiler

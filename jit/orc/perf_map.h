// Linux perf's map of JIT code (KILN_DUMP=perf): one line "START SIZE name"
// per linked kernel in /tmp/perf-<pid>.map, the file `perf report` reads to
// name samples in anonymous executable memory. Kernels then show up as
// `kiln_k_<key>_o<level>`, and `kiln explain <key>` names their group.
// Private to jit/orc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::jit {

/// The map file of this process: /tmp/perf-<pid>.map.
std::string perf_map_path();

/// Appends `symbol`, linked from `object` at `address`, to the map; its size
/// is from the symbol to the end of its section in the object. Does nothing
/// for a symbol the object does not define in a section; a file that cannot
/// be written is skipped too (a profiling aid must not fail a compile).
void add_to_perf_map(std::string_view object, const std::string& symbol, std::uint64_t address);

}  // namespace kiln::jit

// Human-readable byte counts for reports and the stats table.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::profiler {

/// "0 B", "512 B", "4.00 KiB", "1.50 GiB", ... (binary units, two decimals).
std::string format_bytes(std::uint64_t bytes);

}  // namespace kiln::profiler

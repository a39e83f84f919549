// Number formatting for the `kiln` program's screens: short counts, rates,
// bytes, durations, fixed-width cells.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::tools {

/// 999, 1.2k, 45.6M, 7.8G.
std::string short_count(double n);
/// 512 B, 4.0 KiB, 1.5 GiB.
std::string bytes(double n);
/// 0.42 ms, 12.3 ms, 1.2 s.
std::string millis(double ms);
/// 3 s, 5 min, 2 h, 4 d.
std::string age(std::int64_t ms);
/// `s` cut or padded with spaces to exactly `width` columns (right-aligned when `right`).
std::string cell(const std::string& s, int width, bool right = false);

}  // namespace kiln::tools

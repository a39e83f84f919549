// Strings inside the JSON kiln writes (the stats snapshot, the timeline).
// Every output must parse with a strict reader (RFC 8259, UTF-8), whatever
// bytes a string holds: a path, a compiler message or a user's file name may
// carry control characters or bytes that are not UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace kiln::profiler {

/// Appends `text` as the inside of a JSON string: quotes and backslashes
/// escaped, control characters as \n, \t, ... or \u00XX, well-formed UTF-8
/// kept as is, and each byte of a malformed UTF-8 sequence replaced by
/// U+FFFD (what a strict reader would reject).
void append_json_escaped(std::string& out, std::string_view text);

/// The same, as a new string.
std::string json_escape(std::string_view text);

}  // namespace kiln::profiler

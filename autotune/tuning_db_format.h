// The tuning database's file format (docs/tuning-db.md): pretty-printed JSON with a
// schema tag, the context it was tuned under, and the entries by key. One place
// that knows the format, so reading and writing cannot drift apart.
#pragma once

#include <string>
#include <string_view>

#include "autotune/tuning_entry.h"

namespace kiln::autotune::detail {

inline constexpr std::string_view kTuningSchema = "kiln-tuning/1";

/// The file text for these entries (2-space indent, trailing newline).
std::string format_tuning_db(const TuningEntries& entries, const TuningContext& context);

/// The entries of a file's text. Throws std::runtime_error saying why the file is
/// unusable: not JSON, another schema, another context, or a malformed entry.
TuningEntries parse_tuning_db(std::string_view text, const TuningContext& context);

}  // namespace kiln::autotune::detail

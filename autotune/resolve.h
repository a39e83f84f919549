// The one entry point that decides which config a kernel is built with (tinygrad's
// rule): an explicit config, else the tuning database, else the heuristic. Every
// caller going through it keeps the precedence the same everywhere.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "autotune/config_space.h"
#include "autotune/tuning_db.h"

namespace kiln::autotune {

/// `explicit_config` if given (used as is); else the database's entry for `key` when `db` is
/// non-null, has one, and `space` contains its config; else heuristic().
Config resolve(const std::optional<Config>& explicit_config, const TuningDb* db, const std::string& key,
               const ConfigSpace& space, const std::function<Config()>& heuristic);

}  // namespace kiln::autotune

// What the tuning database stores per key, and the context a database file is
// valid for. Apart from tuning_db.h so the file format (tuning_db_format.h) can
// use them without the database class.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "autotune/config_space.h"

namespace kiln::autotune {

/// Where tuned results are valid: a file written under another context is ignored.
/// Filled by the caller (the tuner knows nothing of CPUs or versions).
struct TuningContext {
  std::string cpu_model, cpu_features, kiln_version, llvm_version;
  bool operator==(const TuningContext&) const = default;
};

/// One tuned key's result.
struct TuningEntry {
  Config config;                // the winner
  double seconds = 0;           // its median time
  double default_seconds = 0;   // the heuristic default's time, measured in the same search
  double tuning_seconds = 0;    // wall time the search took
  std::uint64_t evaluated = 0;  // candidates measured
  std::int64_t tuned_at = 0;    // unix time
  bool operator==(const TuningEntry&) const = default;
};

using TuningEntries = std::map<std::string, TuningEntry>;

}  // namespace kiln::autotune

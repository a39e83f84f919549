// The stats snapshot file (docs/stats-schema.md): kiln::Stats as JSON, with
// what a reader needs to judge it (schema version, writer pid, write time)
// and, per top key, the plan the JIT made of it.
#pragma once

#include <cstdint>
#include <string>

#include <kiln/profiler/stats.h>

namespace kiln::profiler {

/// Version of the snapshot's layout. Adding a field keeps it; renaming,
/// removing or changing the meaning of one bumps it.
inline constexpr int kStatsSchema = 1;

/// Who wrote a snapshot and when.
struct SnapshotMeta {
  std::int64_t pid = 0;
  std::int64_t started_at_ms = 0;  // Unix time, milliseconds, when libkiln loaded
  std::int64_t written_at_ms = 0;  // Unix time, milliseconds
  std::int64_t interval_ms = 0;    // the writer's period (0: a one-off write)
  bool final = false;              // written at exit: no later snapshot follows
  std::string program;             // the process's name
  std::string dump_stages;         // KILN_DUMP, where kernel IR goes when kept
  std::string dump_dir;            // KILN_DUMP_DIR as an absolute path
};

/// The whole snapshot document.
std::string stats_json(const Stats& stats, const SnapshotMeta& meta);

}  // namespace kiln::profiler

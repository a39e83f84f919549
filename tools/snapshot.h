// Reading a stats snapshot file (docs/stats-schema.md) and judging it:
// missing, empty, corrupt (e.g. half-written by something other than kiln's
// atomic writer), from a newer schema, or stale.
#pragma once

#include <cstdint>
#include <string>

#include "tools/json.h"

namespace kiln::tools {

/// The newest schema this program understands.
inline constexpr int kSupportedSchema = 1;

enum class SnapshotStatus { Ok, Missing, Empty, Corrupt, FutureSchema };

struct Snapshot {
  SnapshotStatus status = SnapshotStatus::Missing;
  std::string message;  // for anything but Ok: what is wrong, for people
  Json doc;             // the whole document (when Ok)
  std::string text;     // the file as read

  Json stats() const { return doc["stats"]; }
  std::int64_t written_at_ms() const { return static_cast<std::int64_t>(doc["written_at_ms"].number()); }
};

/// Reads and checks `path`. Never throws for a bad file: the status says.
Snapshot load_snapshot(const std::string& path);
/// Checks `text`, the contents of `path` (named in messages), as load_snapshot does.
Snapshot read_snapshot(const std::string& path, std::string text);

/// Whether a good snapshot is still being updated.
struct Freshness {
  bool stale = false;
  std::string label;  // "live", "exited", "stale: ..." for the header line
};

/// `now_ms` is Unix time; `pid_alive` whether the writer's pid still runs
/// (see writer_alive). Stale: older than three writer intervals (at least
/// 3 s), or its writer is gone without a final write.
Freshness judge(const Snapshot& s, std::int64_t now_ms, bool pid_alive);

/// True when the process that wrote `s` still exists.
bool writer_alive(const Snapshot& s);

/// Unix time in milliseconds.
std::int64_t now_unix_ms();

}  // namespace kiln::tools

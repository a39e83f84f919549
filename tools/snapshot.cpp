#include "tools/snapshot.h"

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kiln::tools {

Snapshot load_snapshot(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    Snapshot s;
    s.status = SnapshotStatus::Missing;
    s.message = path + ": no such file (is the program running with KILN_STATS=" + path + "?)";
    return s;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return read_snapshot(path, text.str());
}

Snapshot read_snapshot(const std::string& path, std::string text) {
  Snapshot s;
  s.text = std::move(text);
  const std::string& bytes = s.text;
  if (bytes.find_first_not_of(" \t\r\n") == std::string::npos) {
    s.status = SnapshotStatus::Empty;
    s.message = path + ": empty file, not a kiln stats snapshot";
    return s;
  }
  try {
    s.doc = Json::parse(bytes);
  } catch (const std::exception& e) {
    s.status = SnapshotStatus::Corrupt;
    s.message = path + ": corrupt snapshot (" + e.what() + "); half-written, or not written by kiln";
    return s;
  }
  const Json schema = s.doc["schema"];
  if (!s.doc.is_object() || schema.kind() != Json::Kind::Number || !s.doc["stats"].is_object()) {
    s.status = SnapshotStatus::Corrupt;
    s.message = path + ": not a kiln stats snapshot (no \"schema\" number or \"stats\" object)";
    return s;
  }
  if (schema.number() > kSupportedSchema) {
    s.status = SnapshotStatus::FutureSchema;
    s.message = path + ": snapshot schema " + std::to_string(static_cast<long long>(schema.number())) +
                " is newer than this kiln program understands (" + std::to_string(kSupportedSchema) +
                "); use the kiln program of the kiln that wrote it";
    return s;
  }
  s.status = SnapshotStatus::Ok;
  return s;
}

bool writer_alive(const Snapshot& s) {
  auto pid = static_cast<pid_t>(s.doc["pid"].number());
  if (pid <= 0) return false;
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

Freshness judge(const Snapshot& s, std::int64_t now_ms, bool pid_alive) {
  if (s.doc["final"].boolean()) return {false, "exited"};
  auto interval = static_cast<std::int64_t>(s.doc["interval_ms"].number());
  std::int64_t limit = std::max<std::int64_t>(3 * interval, 3000);
  std::int64_t age = now_ms - s.written_at_ms();
  if (!pid_alive) return {true, "stale: writer gone"};
  if (age > limit) return {true, "stale: " + std::to_string(age / 1000) + " s old"};
  return {false, "live"};
}

std::int64_t now_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace kiln::tools

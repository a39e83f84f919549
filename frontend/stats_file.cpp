// kiln::set_stats_path and KILN_STATS: the snapshot writer lives in the
// profiler, but only the frontend can assemble the whole kiln::Stats
// (profiler counters plus the allocator's), so it passes kiln::stats.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <kiln/error.h>
#include <kiln/frontend/runtime.h>

#include "profiler/stats_writer.h"

namespace kiln {
namespace {

constexpr std::int64_t kDefaultIntervalMs = 500;

std::int64_t interval_from_env() {
  const char* text = std::getenv("KILN_STATS_INTERVAL_MS");
  if (!text || !*text) return kDefaultIntervalMs;
  char* end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (*end != '\0' || v < 1) {
    // Read while libkiln loads, where throwing would end the program.
    std::fprintf(stderr, "kiln: KILN_STATS_INTERVAL_MS=%s is not a positive number of ms; using %lld\n", text,
                 static_cast<long long>(kDefaultIntervalMs));
    return kDefaultIntervalMs;
  }
  return v;
}

// The writer's first snapshot comes one interval after load, so nothing it
// reads is still being initialized.
const bool env_writer_started = [] {
  const char* path = std::getenv("KILN_STATS");
  if (path && *path) profiler::start_stats_writer(path, interval_from_env(), &stats);
  return true;
}();

void check_directory(const char* op, const std::string& path) {
  std::filesystem::path dir = std::filesystem::absolute(path).parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw ValueError("[" + std::string(op) + "] directory of " + path + " does not exist");
}

}  // namespace

void set_stats_path(const std::string& path, std::int64_t interval_ms) {
  if (interval_ms < 1)
    throw ValueError("[set_stats_path] interval_ms must be at least 1, got " + std::to_string(interval_ms));
  if (!path.empty()) check_directory("set_stats_path", path);
  profiler::start_stats_writer(path, interval_ms, &stats);
}

void write_stats(const std::string& path) {
  check_directory("write_stats", path);
  std::string error = profiler::write_stats_file(path, &stats, 0, false);
  if (!error.empty()) throw Error("[write_stats] cannot write " + error);
}

}  // namespace kiln

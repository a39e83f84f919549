// kiln::set_stats_path and KILN_STATS: the snapshot writer lives in the
// profiler, but only the frontend can assemble the whole kiln::Stats
// (profiler counters plus the allocator's), so it passes kiln::stats.
#include <cmath>
#include <filesystem>
#include <string>

#include <kiln/error.h>
#include <kiln/frontend/runtime.h>

#include "profiler/settings/settings.h"
#include "profiler/stats_writer.h"

namespace kiln {
namespace {

namespace knobs = profiler::settings;
using knobs::Id;

// The writer's first snapshot comes one interval after load, so nothing it
// reads is still being initialized. A bad value keeps the writer stopped
// (and is thrown at the first op).
const bool env_writer_started = [] {
  const std::string path = knobs::read_at_load(Id::Stats, [] { return knobs::read_text(Id::Stats); }, std::string());
  if (path.empty()) return false;
  const std::int64_t interval_ms = knobs::read_at_load(
      Id::StatsInterval, [] { return std::llround(knobs::read_duration(Id::StatsInterval)); }, 0L);
  if (interval_ms > 0) profiler::start_stats_writer(path, interval_ms, &stats);
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
  if (!path.empty()) {
    knobs::validate(Id::Stats, path);
    check_directory("set_stats_path", path);
  }
  knobs::clear_load_error(Id::Stats);
  knobs::clear_load_error(Id::StatsInterval);
  profiler::start_stats_writer(path, interval_ms, &stats);
}

void write_stats(const std::string& path) {
  check_directory("write_stats", path);
  std::string error = profiler::write_stats_file(path, &stats, 0, false);
  if (!error.empty()) throw Error("[write_stats] cannot write " + error);
}

}  // namespace kiln

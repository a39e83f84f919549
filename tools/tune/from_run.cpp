#include "tools/tune/from_run.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include <kiln/error.h>

#include "tools/snapshot.h"

namespace kiln::tools {
namespace {

// Kernels below this share of the run's tunable time are not worth a search.
constexpr double kMinShare = 0.01;

std::string percent(double share) {
  char s[16];
  std::snprintf(s, sizeof s, "%.0f%%", 100 * share);
  return s;
}

}  // namespace

RunKernels kernels_of_run(const std::string& path, std::size_t top, const std::vector<std::string>& tuned_keys) {
  RunKernels out;
  const Snapshot snap = load_snapshot(path);
  if (snap.status != SnapshotStatus::Ok) {
    out.error = snap.message;
    return out;
  }
  const Json& stats = snap.stats();
  if (!stats.has("tunables")) {
    out.error = path + " lists no tunable kernels: it was written by a kiln without tuning statistics";
    return out;
  }
  const std::vector<Json>& rows = stats["tunables"].items();
  if (rows.empty()) {
    out.error = path + ": the run made no kernel large enough to tune (GEMMs of 2^18 multiply-adds, compiled kernels of 2^18 elements)" +
                (stats["profiling"].boolean(true) ? "" : "; it ran with KILN_PROFILE=0, which records none");
    return out;
  }
  double total = 0;
  for (const Json& row : rows) total += row["total_ms"].number();
  double chosen_ms = 0;
  for (const Json& row : rows) {
    const std::string key = row["key"].string(), target = row["target"].string();
    const double ms = row["total_ms"].number();
    const std::string name = target.empty() ? key : target;
    if (target.empty()) {
      out.skipped.push_back(name + ": kiln tune has no kernel for this one");
      continue;
    }
    if (std::find(tuned_keys.begin(), tuned_keys.end(), key) != tuned_keys.end()) {
      out.skipped.push_back(name + ": already in the database (kiln tune clear " + key + " to tune it again)");
      continue;
    }
    if (total > 0 && ms < kMinShare * total) {
      out.skipped.push_back(name + ": " + percent(ms / total) + " of the run's tunable time");
      continue;
    }
    if (out.chosen.size() >= top) {
      out.skipped.push_back(name + ": beyond --top " + std::to_string(top));
      continue;
    }
    const std::size_t space = target.find(' ');
    try {
      RunKernel k{kiln::tune::parse_target(std::string_view(target).substr(0, space),
                                           space == std::string::npos ? "" : std::string_view(target).substr(space + 1)),
                  static_cast<int>(row["threads"].number()), key, ms};
      out.chosen.push_back(std::move(k));
      chosen_ms += ms;
    } catch (const kiln::ValueError& e) {
      out.skipped.push_back(name + ": " + e.what());
    }
  }
  out.summary = std::to_string(out.chosen.size()) + " of " + std::to_string(rows.size()) + " kernels, " +
                percent(total > 0 ? chosen_ms / total : 0) + " of the run's tunable time";
  return out;
}

}  // namespace kiln::tools

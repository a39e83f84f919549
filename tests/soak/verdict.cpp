#include "verdict.h"

#include <cstdio>

namespace soak {

std::vector<std::string> failures(const RunSummary& run) {
  std::vector<std::string> why;
  char line[256];
  const double mib = 1024.0 * 1024.0;
  const double bound = static_cast<double>(run.rss_after_warmup) * (1 + kRssGrowth) + kRssSlackBytes;
  if (static_cast<double>(run.rss_at_end) > bound) {
    std::snprintf(line, sizeof line, "RSS grew from %.1f MiB after warm-up to %.1f MiB at the end (bound %.1f MiB)",
                  run.rss_after_warmup / mib, run.rss_at_end / mib, bound / mib);
    why.emplace_back(line);
  }
  if (run.hot_compiled_share < kMinHotCompiledShare) {
    std::snprintf(line, sizeof line, "hot structures ran compiled %.1f%% of their runs in the last interval, demoted ones left out (need %.0f%%)",
                  100 * run.hot_compiled_share, 100 * kMinHotCompiledShare);
    why.emplace_back(line);
  }
  return why;
}

}  // namespace soak

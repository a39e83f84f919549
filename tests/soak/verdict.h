// What --check requires of a soak run: flat memory after warm-up, and the
// hot structures running compiled at the end.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace soak {

struct RunSummary {
  std::uint64_t rss_after_warmup = 0;  // bytes, at the end of the first third
  std::uint64_t rss_at_end = 0;
  double hot_compiled_share = 0;       // of the last report interval, demoted chains left out
};

/// RSS at the end may exceed RSS after warm-up by 10% plus 4 MiB: malloc
/// keeps freed chunks in per-thread arenas and TBB workers grow their
/// stacks and caches on first use, a few MiB that a leak would pass within
/// minutes at this rate of new keys.
constexpr double kRssGrowth = 0.10;
constexpr std::uint64_t kRssSlackBytes = 4u << 20;
/// Share of the hot structures' runs that must run compiled (runs of a
/// chain the JIT demoted, having measured tier 0 faster, left out).
constexpr double kMinHotCompiledShare = 0.90;

/// Why the run fails the check; empty when it passes.
std::vector<std::string> failures(const RunSummary& run);

}  // namespace soak

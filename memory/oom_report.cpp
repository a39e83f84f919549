#include "memory/oom_report.h"

#include <algorithm>
#include <sstream>

#include "profiler/format.h"

namespace kiln::memory {

using profiler::format_bytes;

std::string oom_report(std::size_t request, std::size_t capacity, std::string_view cause,
                       MemorySnapshot snapshot) {
  std::ostringstream out;
  out << "[memory] cannot allocate " << format_bytes(request);
  if (capacity != request) out << " (a " << format_bytes(capacity) << " block)";
  out << ": " << cause << " (peak " << format_bytes(snapshot.peak_bytes) << ", pooled "
      << format_bytes(snapshot.pooled_bytes) << "); ";

  auto& classes = snapshot.live_by_class;
  if (classes.empty()) {
    out << "no live blocks";
    return out.str();
  }
  auto held = [](const MemorySnapshot::Class& c) { return c.block_bytes * c.live_blocks; };
  std::sort(classes.begin(), classes.end(), [&](const auto& a, const auto& b) {
    return held(a) != held(b) ? held(a) > held(b) : a.block_bytes > b.block_bytes;
  });
  constexpr std::size_t kShown = 8;
  out << "live blocks by size: ";
  for (std::size_t i = 0; i < std::min(kShown, classes.size()); ++i) {
    out << (i ? ", " : "") << classes[i].live_blocks << " x " << format_bytes(classes[i].block_bytes);
  }
  if (classes.size() > kShown) {
    std::uint64_t rest = 0;
    for (std::size_t i = kShown; i < classes.size(); ++i) rest += held(classes[i]);
    out << ", and " << classes.size() - kShown << " more sizes holding " << format_bytes(rest);
  }
  return out.str();
}

}  // namespace kiln::memory

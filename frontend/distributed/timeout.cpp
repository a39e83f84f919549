// KILN_DIST_TIMEOUT: read through the settings table at first use.
#include <atomic>
#include <cmath>

#include <kiln/distributed.h>

#include "profiler/settings/settings.h"

namespace kiln::distributed {

namespace {
namespace knobs = profiler::settings;

std::atomic<std::int64_t>& timeout_ms() {
  static std::atomic<std::int64_t> ms{std::llround(knobs::read_duration(knobs::Id::DistTimeout) * 1000.0)};
  return ms;
}
}  // namespace

std::chrono::milliseconds timeout() { return std::chrono::milliseconds(timeout_ms().load()); }

void set_timeout(std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0)
    throw ValueError(detail::cat("[set_timeout] a collective's timeout must be positive, got ", timeout.count(),
                                 " ms"));
  timeout_ms().store(timeout.count());
}

}  // namespace kiln::distributed

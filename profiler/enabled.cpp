#include "profiler/enabled.h"

#include <unistd.h>

#include <chrono>

#include "profiler/settings/settings.h"

namespace kiln::profiler {
namespace detail {

using settings::Id;

// Read when libkiln loads: enabled() is asked on every recorded op.
std::atomic<bool> g_enabled{settings::read_at_load(Id::Profile, [] { return settings::read_boolean(Id::Profile); }, true)};

}  // namespace detail

void set_enabled(bool on) noexcept {
  settings::clear_load_error(settings::Id::Profile);
  detail::g_enabled.store(on, std::memory_order_relaxed);
}

std::int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::int64_t start_ns() noexcept {
  static const std::int64_t start = now_ns();
  return start;
}

namespace {
// Fixed when libkiln loads, so that time zero precedes every record.
const std::int64_t g_start_at_load = start_ns();
}  // namespace

std::uint64_t thread_id() noexcept {
  thread_local const std::uint64_t id = static_cast<std::uint64_t>(gettid());
  return id;
}

}  // namespace kiln::profiler

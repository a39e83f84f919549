#include "profiler/events.h"

#include <deque>
#include <mutex>

#include "profiler/cut_sites.h"
#include "profiler/enabled.h"
#include "profiler/timeline.h"

namespace kiln::profiler {
namespace {

constexpr std::size_t kKeptEvents = 64;

struct Logged {
  Event event;
  std::uint64_t thread;
};

struct Log {
  std::mutex mu;
  std::deque<Logged> events;
};

Log& log() {
  static Log* instance = new Log;  // compile tasks may log during static destruction
  return *instance;
}

}  // namespace

const char* to_string(EventKind kind) noexcept {
  switch (kind) {
    case EventKind::CutSite: return "cut_site";
    case EventKind::NewKey: return "new_key";
    case EventKind::Queued: return "queued";
    case EventKind::Compiled: return "compiled";
    case EventKind::Swapped: return "swapped";
    case EventKind::Demoted: return "demoted";
    case EventKind::Failed: return "failed";
    case EventKind::Evicted: return "evicted";
    case EventKind::Recomputed: return "recomputed";
    case EventKind::Tuned: return "tuned";
    case EventKind::Dropped: return "dropped";
    case EventKind::kCount: break;
  }
  return "?";
}

void log_event(Event event) noexcept {
  if (!enabled()) return;
  if (event.start_ns == 0) event.start_ns = now_ns();
  const std::uint64_t thread = thread_id();
  timeline_event(event, thread);
  try {
    Log& l = log();
    std::lock_guard lock(l.mu);
    l.events.push_back({std::move(event), thread});
    if (l.events.size() > kKeptEvents) l.events.pop_front();
  } catch (...) {
    // Out of memory: the event is lost; profiling never takes the program down.
  }
}

std::vector<EventStats> recent_events() {
  std::deque<Logged> copy;
  {
    Log& l = log();
    std::lock_guard lock(l.mu);
    copy = l.events;
  }
  std::vector<EventStats> out;
  out.reserve(copy.size());
  for (const Logged& l : copy) {
    const Event& e = l.event;
    out.push_back({to_string(e.kind), static_cast<double>(e.start_ns - start_ns()) / 1e6,
                   static_cast<double>(e.duration_ns) / 1e6, l.thread, e.key, e.detail,
                   e.site ? site_location(e.site).text : std::string()});
  }
  return out;
}

void reset_events() noexcept {
  Log& l = log();
  std::lock_guard lock(l.mu);
  l.events.clear();
}

}  // namespace kiln::profiler

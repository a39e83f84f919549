#include "profiler/timeline.h"

#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>

#include "profiler/enabled.h"
#include "profiler/json_escape.h"
#include "profiler/termination_signals.h"
#include "profiler/settings/settings.h"

namespace kiln::profiler {
namespace detail {
std::atomic<bool> g_timeline_open{false};
}

namespace {

struct Writer {
  std::mutex mu;
  std::FILE* file = nullptr;
  bool first = true;             // no event written yet: no separator before the next
  std::uint64_t generation = 0;  // which open() the threads' names were written for
  int pid = 0;
};

Writer& writer() {
  static Writer* instance = new Writer;  // in use until the very end of the process
  return *instance;
}

thread_local std::uint64_t t_named_generation = 0;

double micros(std::int64_t ns) { return static_cast<double>(ns - start_ns()) / 1e3; }

// Writes one JSON object as the next array element; caller holds w.mu.
void put(Writer& w, const char* json) {
  std::fputs(w.first ? "\n" : ",\n", w.file);
  std::fputs(json, w.file);
  w.first = false;
}

// Names the calling thread in the viewer the first time it writes to this file.
void name_thread(Writer& w, std::uint64_t thread, const char* role) {
  if (t_named_generation == w.generation) return;
  t_named_generation = w.generation;
  char json[192];
  std::snprintf(json, sizeof json,
                R"({"name":"thread_name","ph":"M","pid":%d,"tid":%)" PRIu64 R"(,"args":{"name":"%s %)" PRIu64 "\"}}",
                w.pid, thread, static_cast<int>(thread) == w.pid ? "main" : role, thread);
  put(w, json);
}

void close_locked(Writer& w) {
  if (!w.file) return;
  std::fputs("\n]\n", w.file);
  std::fclose(w.file);
  w.file = nullptr;
  detail::g_timeline_open.store(false, std::memory_order_relaxed);
}

std::terminate_handler g_previous_terminate = nullptr;

// An uncaught exception: close the array if no writer is mid-event, then
// let the previous handler (by default abort) run.
[[noreturn]] void close_on_terminate() {
  Writer& w = writer();
  if (w.mu.try_lock()) {
    close_locked(w);
    w.mu.unlock();
  }
  if (g_previous_terminate) g_previous_terminate();
  std::abort();
}

void install_exit_handlers() {
  static const bool installed = [] {
    std::atexit([] { close_timeline(); });
    g_previous_terminate = std::set_terminate(close_on_terminate);
    flush_on_termination_signals(close_timeline);
    return true;
  }();
  (void)installed;
}

// KILN_TRACE_EVENTS: opened when libkiln loads, so the whole run is on it.
const bool g_opened_from_env = [] {
  using settings::Id;
  const std::string path =
      settings::read_at_load(Id::TraceEvents, [] { return settings::read_text(Id::TraceEvents); }, std::string());
  if (path.empty()) return false;
  if (open_timeline(path)) return true;
  std::fprintf(stderr, "kiln: cannot write KILN_TRACE_EVENTS='%s'\n", path.c_str());
  return false;
}();

}  // namespace

bool open_timeline(const std::string& path) {
  Writer& w = writer();
  std::lock_guard lock(w.mu);
  close_locked(w);
  w.file = std::fopen(path.c_str(), "w");
  if (!w.file) return false;
  std::setvbuf(w.file, nullptr, _IOFBF, 1 << 20);
  install_exit_handlers();
  w.first = true;
  ++w.generation;
  w.pid = static_cast<int>(getpid());
  std::fputs("[", w.file);
  char json[160];
  std::snprintf(json, sizeof json, R"({"name":"process_name","ph":"M","pid":%d,"tid":%d,"args":{"name":"kiln"}})",
                w.pid, w.pid);
  put(w, json);
  detail::g_timeline_open.store(true, std::memory_order_relaxed);
  return true;
}

void close_timeline() noexcept {
  Writer& w = writer();
  std::lock_guard lock(w.mu);
  close_locked(w);
}

void timeline_segment(const SegmentRun& run) noexcept {
  if (!timeline_open()) return;
  const std::uint64_t thread = thread_id();
  char json[320];
  std::snprintf(json, sizeof json,
                R"({"name":"segment %016)" PRIx64 R"(","cat":"tier%d","ph":"X","ts":%.3f,"dur":%.3f,"pid":%d,"tid":%)" PRIu64
                R"(,"args":{"tier":%d,"reason":"%s","ops_run":%u,"ops_eliminated":%u,"temp_bytes":%)" PRIu64 "}}",
                run.key, run.compiled ? 1 : 0, micros(run.start_ns), static_cast<double>(run.nanoseconds) / 1e3,
                writer().pid, thread, run.compiled ? 1 : 0, to_string(run.reason), run.ops_run, run.ops_eliminated,
                run.intermediate_bytes);
  Writer& w = writer();
  std::lock_guard lock(w.mu);
  if (!w.file) return;
  name_thread(w, thread, "thread");
  put(w, json);
}

void timeline_event(const Event& e, std::uint64_t thread) noexcept {
  if (!timeline_open()) return;
  try {
    const std::string detail = json_escape(e.detail);
    // Spans are compiles, on the compile thread, and recomputations of
    // evicted values, on the thread whose read needed them.
    const bool span = e.duration_ns > 0;
    const bool recompute = e.kind == EventKind::Recomputed;
    const char* category = !span ? "event" : recompute ? "memory" : "compile";
    std::string json(detail.size() + 320, '\0');
    const int n = std::snprintf(
        json.data(), json.size(),
        R"({"name":"%s %016)" PRIx64 R"(","cat":"%s","ph":"%s",%s"ts":%.3f,"dur":%.3f,"pid":%d,"tid":%)" PRIu64
        R"(,"args":{"detail":"%s"}})",
        to_string(e.kind), e.key, category, span ? "X" : "i", span ? "" : R"("s":"t",)",
        micros(e.start_ns), static_cast<double>(e.duration_ns) / 1e3, writer().pid, thread, detail.c_str());
    json.resize(static_cast<std::size_t>(n > 0 ? n : 0));
    Writer& w = writer();
    std::lock_guard lock(w.mu);
    if (!w.file) return;
    name_thread(w, thread, span && !recompute ? "compile" : "thread");
    put(w, json.c_str());
  } catch (...) {
    // Out of memory: the event is missing from the timeline, nothing else.
  }
}

}  // namespace kiln::profiler

#include "profiler/stats_writer.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "profiler/dump_target.h"
#include "profiler/stats_json.h"
#include "profiler/termination_signals.h"

namespace kiln::profiler {
namespace {

namespace fs = std::filesystem;

std::string program_name() {
  std::ifstream comm("/proc/self/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// When libkiln loaded: readers derive average rates from it.
const std::int64_t g_started_at_ms = unix_ms();

SnapshotMeta meta_now(std::int64_t interval_ms, bool final) {
  SnapshotMeta m;
  m.pid = ::getpid();
  m.started_at_ms = g_started_at_ms;
  m.written_at_ms = unix_ms();
  m.interval_ms = interval_ms;
  m.final = final;
  static const std::string program = program_name();
  m.program = program;
  if (DumpTarget dump = dump_target(); !dump.stages.empty()) {
    m.dump_stages = dump.stages;
    std::error_code ec;
    m.dump_dir = fs::absolute(dump.dir, ec).string();
  }
  return m;
}

// One writer per process. Control calls (start/stop) are serialized by
// `control`; `mu` guards what the thread reads.
struct Writer {
  std::mutex control;
  std::mutex mu;
  std::condition_variable wake;
  std::thread thread;
  bool stopping = false;
  std::string path;
  std::int64_t interval_ms = 500;
  StatsSource source = nullptr;
  bool reported_failure = false;

  void write(bool final) {
    std::string error = write_stats_file(path, source, interval_ms, final);
    if (!error.empty() && !reported_failure) {
      reported_failure = true;  // a user who asked for the file hears why it is missing, once
      std::fprintf(stderr, "kiln: cannot write the stats snapshot: %s\n", error.c_str());
    }
  }

  void loop() {
    std::unique_lock lock(mu);
    while (!wake.wait_for(lock, std::chrono::milliseconds(interval_ms), [&] { return stopping; })) write(false);
  }
};

Writer& writer() {
  static Writer* instance = new Writer;  // used by the exit handler: never destroyed
  return *instance;
}

void stop_locked(Writer& w) {
  if (!w.thread.joinable()) return;
  {
    std::lock_guard lock(w.mu);
    w.stopping = true;
  }
  w.wake.notify_all();
  w.thread.join();
  w.write(true);
  w.stopping = false;
}

}  // namespace

std::string write_file_atomically(const std::string& path, const std::string& text) {
  // Unique per process and per call: an explicit write may overlap the background one.
  static std::atomic<std::uint64_t> serial{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial.fetch_add(1));
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return tmp + ": " + std::strerror(errno);
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fclose(f) == 0 && ok;
  std::error_code ec;
  if (ok) fs::rename(tmp, path, ec);
  if (!ok || ec) {
    fs::remove(tmp, ec);
    return path + ": " + (ok ? ec.message() : std::string("write failed"));
  }
  return {};
}

std::string write_stats_file(const std::string& path, StatsSource source, std::int64_t interval_ms, bool final) {
  return write_file_atomically(path, stats_json(source(), meta_now(interval_ms, final)));
}

void start_stats_writer(const std::string& path, std::int64_t interval_ms, StatsSource source) {
  Writer& w = writer();
  std::lock_guard control(w.control);
  stop_locked(w);
  if (path.empty()) return;
  static const bool exit_hooks = [] {
    flush_on_termination_signals([]() noexcept {
      try {
        stop_stats_writer();
      } catch (...) {
        // The final snapshot is missing; the signal still ends the program.
      }
    });
    return std::atexit(stop_stats_writer) == 0;
  }();
  (void)exit_hooks;
  w.path = path;
  w.interval_ms = interval_ms;
  w.source = source;
  w.reported_failure = false;
  w.thread = std::thread([&w] { w.loop(); });
}

void stop_stats_writer() {
  Writer& w = writer();
  std::lock_guard control(w.control);
  stop_locked(w);
}

}  // namespace kiln::profiler

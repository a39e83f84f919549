#include "profiler/jit_counters.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <mutex>
#include <vector>

#include "profiler/counters.h"

namespace kiln::profiler {
namespace {

constexpr std::size_t kKeptFailures = 8;
constexpr std::size_t kKeptSamples = 4096;

struct JitCounters {
  std::array<std::atomic<std::uint64_t>, static_cast<std::size_t>(JitEvent::kCount)> events{};
  std::atomic<std::int64_t> in_flight{0};
  std::atomic<std::int64_t> queued{0};
  std::atomic<std::int64_t> tunes_in_flight{0};
  std::atomic<std::int64_t> kernels_resident{0};
  std::mutex mu;  // guards the samples and failures (touched once per compile, not per op)
  std::vector<double> compile_ms;
  std::vector<double> disk_load_ms;
  std::deque<std::string> failures;
};

JitCounters& jit() {
  static JitCounters* instance = new JitCounters;  // outlives static destruction, like counters()
  return *instance;
}

void keep(std::vector<double>& samples, double ms) {
  if (samples.size() < kKeptSamples) samples.push_back(ms);
  else samples[samples.size() % kKeptSamples] = ms;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  auto k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

void count(JitEvent event, std::uint64_t n) noexcept {
  jit().events[static_cast<std::size_t>(event)].fetch_add(n, std::memory_order_relaxed);
}

void record_compile_ms(double ms) noexcept {
  try {
    std::lock_guard lock(jit().mu);
    keep(jit().compile_ms, ms);
  } catch (...) {
  }
}

void record_disk_load_ms(double ms) noexcept {
  try {
    std::lock_guard lock(jit().mu);
    keep(jit().disk_load_ms, ms);
  } catch (...) {
  }
}

void record_failure(const std::string& reason) noexcept {
  try {
    std::lock_guard lock(jit().mu);
    jit().failures.push_back(reason);
    if (jit().failures.size() > kKeptFailures) jit().failures.pop_front();
  } catch (...) {
  }
}

void add_in_flight(std::int64_t delta) noexcept { jit().in_flight.fetch_add(delta, std::memory_order_relaxed); }
void add_queued(std::int64_t delta) noexcept { jit().queued.fetch_add(delta, std::memory_order_relaxed); }
void add_tunes_in_flight(std::int64_t delta) noexcept {
  jit().tunes_in_flight.fetch_add(delta, std::memory_order_relaxed);
}

void add_kernels_resident(std::int64_t delta) noexcept {
  jit().kernels_resident.fetch_add(delta, std::memory_order_relaxed);
}

void fill_jit_stats(JitStats& s) {
  JitCounters& c = jit();
  auto get = [&](JitEvent e) { return c.events[static_cast<std::size_t>(e)].load(std::memory_order_relaxed); };
#define KILN_JIT_EVENT(name, Event, doc) s.name = get(JitEvent::Event);
#include <kiln/profiler/counters.def>
  s.kernels_resident = static_cast<std::uint64_t>(std::max<std::int64_t>(0, c.kernels_resident.load()));
  s.compiles_in_flight = static_cast<std::uint64_t>(std::max<std::int64_t>(0, c.in_flight.load()));
  s.compiles_queued = static_cast<std::uint64_t>(std::max<std::int64_t>(0, c.queued.load()));
  s.tunes_in_flight = static_cast<std::uint64_t>(std::max<std::int64_t>(0, c.tunes_in_flight.load()));
  std::lock_guard lock(c.mu);
  s.compile_ms_p50 = percentile(c.compile_ms, 0.5);
  s.compile_ms_p90 = percentile(c.compile_ms, 0.9);
  s.compile_ms_p99 = percentile(c.compile_ms, 0.99);
  s.compile_ms_max = c.compile_ms.empty() ? 0 : *std::max_element(c.compile_ms.begin(), c.compile_ms.end());
  s.disk_load_ms_p50 = percentile(c.disk_load_ms, 0.5);
  s.recent_failures.assign(c.failures.begin(), c.failures.end());
}

void reset_jit() noexcept {
  JitCounters& c = jit();
  for (auto& e : c.events) e.store(0, std::memory_order_relaxed);
  std::lock_guard lock(c.mu);
  c.compile_ms.clear();
  c.disk_load_ms.clear();
  c.failures.clear();
}

}  // namespace kiln::profiler

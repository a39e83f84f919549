#include "profiler/comm_counters.h"

#include <algorithm>
#include <atomic>

namespace kiln::profiler {
namespace {

struct CommCounters {
  std::atomic<std::uint64_t> bytes_allreduced{0}, bytes_broadcast{0};
  std::atomic<std::int64_t> allreduce_ns{0}, gradient_allreduce_ns{0}, backward_wait_ns{0};
};

CommCounters& counters() {
  static CommCounters c;
  return c;
}

double millis(const std::atomic<std::int64_t>& ns) {
  return static_cast<double>(ns.load(std::memory_order_relaxed)) / 1e6;
}

}  // namespace

void record_allreduce(std::uint64_t bytes, std::int64_t nanoseconds) noexcept {
  counters().bytes_allreduced.fetch_add(bytes, std::memory_order_relaxed);
  counters().allreduce_ns.fetch_add(nanoseconds, std::memory_order_relaxed);
}

void record_broadcast(std::uint64_t bytes) noexcept {
  counters().bytes_broadcast.fetch_add(bytes, std::memory_order_relaxed);
}

void record_gradient_allreduce(std::int64_t nanoseconds) noexcept {
  counters().gradient_allreduce_ns.fetch_add(nanoseconds, std::memory_order_relaxed);
}

void record_backward_comm_wait(std::int64_t nanoseconds) noexcept {
  counters().backward_wait_ns.fetch_add(nanoseconds, std::memory_order_relaxed);
}

void fill_comm_stats(Stats& s) noexcept {
  const CommCounters& c = counters();
  s.comm_bytes_allreduced = c.bytes_allreduced.load(std::memory_order_relaxed);
  s.comm_bytes_broadcast = c.bytes_broadcast.load(std::memory_order_relaxed);
  s.allreduce_ms = millis(c.allreduce_ns);
  s.gradient_allreduce_ms = millis(c.gradient_allreduce_ns);
  s.backward_comm_wait_ms = millis(c.backward_wait_ns);
  // The wait can exceed the all-reduce time (a bucket queued behind another
  // collective): nothing was hidden then, not a negative share.
  s.comm_overlap = s.gradient_allreduce_ms > 0
                       ? std::clamp(1 - s.backward_comm_wait_ms / s.gradient_allreduce_ms, 0.0, 1.0)
                       : 0.0;
}

void reset_comm() noexcept {
  CommCounters& c = counters();
  c.bytes_allreduced.store(0, std::memory_order_relaxed);
  c.bytes_broadcast.store(0, std::memory_order_relaxed);
  c.allreduce_ns.store(0, std::memory_order_relaxed);
  c.gradient_allreduce_ns.store(0, std::memory_order_relaxed);
  c.backward_wait_ns.store(0, std::memory_order_relaxed);
}

}  // namespace kiln::profiler

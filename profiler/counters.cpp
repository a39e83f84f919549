#include "profiler/counters.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <unordered_map>

namespace kiln::profiler {
namespace {

struct KeyEntry {
  std::uint64_t runs = 0;
  std::uint32_t ops = 0;
  std::uint64_t nanoseconds = 0;
  CutReason first_reason{};
  CutReason last_reason{};
};

struct Counters {
  std::atomic<std::uint64_t> ops_recorded{0};
  std::atomic<std::uint64_t> ops_executed{0};
  std::atomic<std::uint64_t> ops_eliminated{0};
  std::atomic<std::uint64_t> segments_run{0};
  std::atomic<std::uint64_t> intermediate_bytes{0};
  std::array<std::atomic<std::uint64_t>, kNumCutReasons> by_reason{};
  std::mutex keys_mutex;
  std::unordered_map<std::uint64_t, KeyEntry> keys;
};

// Never destroyed: threads that exit after main() still record their last
// segment.
Counters& counters() {
  static Counters* instance = new Counters;
  return *instance;
}

constexpr std::size_t kTopKeys = 16;

}  // namespace

const char* to_string(CutReason reason) noexcept {
  switch (reason) {
    case CutReason::Item: return "item";
    case CutReason::DataPtr: return "data_ptr";
    case CutReason::ToVector: return "to_vector";
    case CutReason::Print: return "print";
    case CutReason::Bool: return "bool";
    case CutReason::Sync: return "sync";
    case CutReason::OpLimit: return "op_limit";
    case CutReason::CrossThread: return "cross_thread";
    case CutReason::ThreadExit: return "thread_exit";
    case CutReason::MemoryPressure: return "memory_pressure";
    case CutReason::Borrowed: return "borrowed";
    case CutReason::kCount: break;
  }
  return "?";
}

void add_ops_recorded(std::uint64_t n) noexcept {
  counters().ops_recorded.fetch_add(n, std::memory_order_relaxed);
}

void record_segment_run(std::uint64_t key, CutReason why, std::uint32_t ops_run,
                        std::uint32_t ops_eliminated, std::uint64_t nanoseconds,
                        std::uint64_t intermediate_bytes) noexcept {
  Counters& c = counters();
  c.ops_executed.fetch_add(ops_run, std::memory_order_relaxed);
  c.ops_eliminated.fetch_add(ops_eliminated, std::memory_order_relaxed);
  c.segments_run.fetch_add(1, std::memory_order_relaxed);
  c.intermediate_bytes.fetch_add(intermediate_bytes, std::memory_order_relaxed);
  const auto reason = static_cast<std::size_t>(why);
  if (reason < kNumCutReasons) c.by_reason[reason].fetch_add(1, std::memory_order_relaxed);

  // If the table cannot grow (no memory), this run is missing from the
  // per-key view only; profiling must never take the program down.
  try {
    std::lock_guard lock(c.keys_mutex);
    auto [it, first] = c.keys.try_emplace(key);
    KeyEntry& e = it->second;
    if (first) e.first_reason = why;
    e.runs += 1;
    e.ops = ops_run + ops_eliminated;
    e.nanoseconds += nanoseconds;
    e.last_reason = why;
  } catch (...) {
  }
}

void reset() noexcept {
  Counters& c = counters();
  for (auto* counter : {&c.ops_recorded, &c.ops_executed, &c.ops_eliminated, &c.segments_run,
                        &c.intermediate_bytes}) {
    counter->store(0, std::memory_order_relaxed);
  }
  for (auto& counter : c.by_reason) counter.store(0, std::memory_order_relaxed);
  reset_jit();
  std::lock_guard lock(c.keys_mutex);
  c.keys.clear();
}

Stats snapshot() {
  Counters& c = counters();
  Stats s;
  s.ops_recorded = c.ops_recorded.load(std::memory_order_relaxed);
  s.ops_executed = c.ops_executed.load(std::memory_order_relaxed);
  s.ops_eliminated = c.ops_eliminated.load(std::memory_order_relaxed);
  s.segments_run = c.segments_run.load(std::memory_order_relaxed);
  s.intermediate_bytes = c.intermediate_bytes.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < kNumCutReasons; ++i) {
    s.segments_by_reason[i] = c.by_reason[i].load(std::memory_order_relaxed);
  }

  fill_jit_stats(s.jit);
  std::lock_guard lock(c.keys_mutex);
  s.distinct_keys = c.keys.size();
  s.top_keys.reserve(c.keys.size());
  for (const auto& [key, e] : c.keys) {
    s.top_keys.push_back({key, e.runs, e.ops, static_cast<double>(e.nanoseconds) / 1e6,
                          to_string(e.first_reason), to_string(e.last_reason)});
  }
  const auto more_runs = [](const KeyStats& a, const KeyStats& b) {
    return a.runs != b.runs ? a.runs > b.runs : a.key < b.key;
  };
  const std::size_t shown = std::min(kTopKeys, s.top_keys.size());
  std::partial_sort(s.top_keys.begin(), s.top_keys.begin() + shown, s.top_keys.end(), more_runs);
  s.top_keys.resize(shown);
  return s;
}

}  // namespace kiln::profiler

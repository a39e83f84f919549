#include "profiler/counters.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <unordered_map>

#include "profiler/comm_counters.h"
#include "profiler/cut_sites.h"
#include "profiler/enabled.h"
#include "profiler/events.h"
#include "profiler/thread_block.h"
#include "profiler/timeline.h"
#include "profiler/tunables.h"

namespace kiln::profiler {
namespace {

constexpr std::size_t kTopKeys = 16;
constexpr std::size_t kTopCutSites = 32;
constexpr std::size_t kTopTunables = 16;

// Keys whose first run was noted, direct-mapped by their low bits, and
// their count: bounded however many keys a program makes. A key whose slot
// another key took since counts (and logs new_key) once more.
struct NewKeys {
  static constexpr std::size_t kSlots = 1 << 14;
  std::array<std::atomic<std::uint64_t>, kSlots> slots{};
  std::atomic<std::uint64_t> distinct{0};
};

NewKeys& new_keys() {
  static NewKeys* instance = new NewKeys;  // outlives static destruction, like the blocks
  return *instance;
}

// reset() starts a new epoch: a key's first run after it is a first run again.
std::atomic<std::uint64_t> g_epoch{1};
std::atomic<KeyInspector> g_inspector{nullptr};

// The thread saw `run.key` for the first time this epoch: is it new to the process?
void note_first_run(const SegmentRun& run) {
  NewKeys& n = new_keys();
  // Salted, so that key 0 is not taken for an empty slot.
  const std::uint64_t salted = run.key ^ 0x9e3779b97f4a7c15ull;
  if (n.slots[run.key % NewKeys::kSlots].exchange(salted, std::memory_order_relaxed) == salted) return;
  n.distinct.fetch_add(1, std::memory_order_relaxed);
  log_event({.kind = EventKind::NewKey, .key = run.key, .detail = to_string(run.reason), .site = run.site,
             .start_ns = run.start_ns});
}

// One key summed over the threads that ran it.
struct MergedKey {
  std::uint64_t runs[2] = {0, 0}, nanoseconds[2] = {0, 0}, bytes = 0;
  std::uint32_t ops = 0;
  CutReason last_reason = CutReason::kCount;
  std::int64_t last_ns = -1;
  CutReason first_reason = CutReason::kCount;
  std::uint32_t first_site = 0;
  std::int64_t first_ns = 0;
};

void merge(MergedKey& m, const LocalKey& k) {
  for (int t = 0; t < 2; ++t) {
    m.runs[t] += k.runs[t].get();
    m.nanoseconds[t] += k.nanoseconds[t].get();
  }
  m.bytes += k.bytes.get();
  if (k.last_ns.load(std::memory_order_relaxed) > m.last_ns) {
    m.last_ns = k.last_ns.load(std::memory_order_relaxed);
    m.ops = k.ops.load(std::memory_order_relaxed);
    m.last_reason = static_cast<CutReason>(k.last_reason.load(std::memory_order_relaxed));
  }
  const std::int64_t first = k.first_ns.load(std::memory_order_relaxed);
  if (k.first_reason.load(std::memory_order_relaxed) != LocalKey::kNoReason &&
      (m.first_reason == CutReason::kCount || first < m.first_ns)) {
    m.first_ns = first;
    m.first_reason = static_cast<CutReason>(k.first_reason.load(std::memory_order_relaxed));
    m.first_site = k.first_site.load(std::memory_order_relaxed);
  }
}

KeyStats key_stats(std::uint64_t key, const MergedKey& m) {
  KeyStats k;
  k.key = key;
  k.runs_tier0 = m.runs[0];
  k.runs_tier1 = m.runs[1];
  k.runs = m.runs[0] + m.runs[1];
  k.tier0_ms = static_cast<double>(m.nanoseconds[0]) / 1e6;
  k.tier1_ms = static_cast<double>(m.nanoseconds[1]) / 1e6;
  k.total_ms = k.tier0_ms + k.tier1_ms;
  k.ops = m.ops;
  k.bytes = m.bytes;
  k.last_reason = to_string(m.last_reason);
  k.first_reason = to_string(m.first_reason);
  if (m.first_site) k.call_site = site_location(m.first_site).text;
  KeyJitInfo jit;
  if (KeyInspector inspect = g_inspector.load(); inspect && inspect(key, jit)) {
    k.state = jit.state;
    k.kernels = jit.kernels;
    k.compile_ms = jit.compile_ms;
    k.deopts = jit.deopts;
  }
  return k;
}

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
  if (!enabled()) return;
  with_this_thread_block([&](ThreadBlock& b) { b.ops_recorded.add(n); });
}

void record_segment_run(const SegmentRun& run) noexcept {
  if (!enabled()) return;
  const std::uint64_t epoch = g_epoch.load(std::memory_order_relaxed);
  bool first = false;
  // If a table cannot grow (no memory), this run is missing from the
  // per-key view only; profiling must never take the program down.
  try {
    with_this_thread_block([&](ThreadBlock& b) {
      b.ops_executed.add(run.ops_run);
      b.ops_eliminated.add(run.ops_eliminated);
      b.segments_run.add(1);
      b.intermediate_bytes.add(run.intermediate_bytes);
      const auto reason = static_cast<std::size_t>(run.reason);
      if (reason < kNumCutReasons) b.by_reason[reason].add(1);
      LocalKey& k = b.key_record(run.key);
      const int tier = run.compiled ? 1 : 0;
      k.runs[tier].add(1);
      k.nanoseconds[tier].add(run.nanoseconds);
      k.bytes.add(run.intermediate_bytes);
      k.ops.store(run.ops_run + run.ops_eliminated, std::memory_order_relaxed);
      k.last_reason.store(static_cast<std::uint8_t>(run.reason), std::memory_order_relaxed);
      k.last_ns.store(run.start_ns, std::memory_order_relaxed);
      if (k.epoch.load(std::memory_order_relaxed) != epoch) {
        k.epoch.store(epoch, std::memory_order_relaxed);
        k.first_reason.store(static_cast<std::uint8_t>(run.reason), std::memory_order_relaxed);
        k.first_site.store(run.site, std::memory_order_relaxed);
        k.first_ns.store(run.start_ns, std::memory_order_relaxed);
        first = true;
      }
    });
    if (first) note_first_run(run);
  } catch (...) {
  }
  timeline_segment(run);
}

void set_key_inspector(KeyInspector inspector) noexcept { g_inspector.store(inspector); }

void reset() noexcept {
  g_epoch.fetch_add(1, std::memory_order_relaxed);
  for_each_block([](ThreadBlock& b) {
    for (LocalCounter* c : {&b.ops_recorded, &b.ops_executed, &b.ops_eliminated, &b.segments_run,
                            &b.intermediate_bytes})
      c->clear();
    for (LocalCounter& c : b.by_reason) c.clear();
    std::lock_guard lock(b.keys_mu);
    for (LocalKey& k : b.keys) {
      for (int t = 0; t < 2; ++t) {
        k.runs[t].clear();
        k.nanoseconds[t].clear();
      }
      k.bytes.clear();
    }
  });
  reset_jit();
  reset_comm();
  reset_cut_sites();
  reset_events();
  reset_tunables();
  NewKeys& n = new_keys();
  for (std::atomic<std::uint64_t>& slot : n.slots) slot.store(0, std::memory_order_relaxed);
  n.distinct.store(0, std::memory_order_relaxed);
}

Stats snapshot() {
  Stats s;
  s.profiling = enabled();
  std::unordered_map<std::uint64_t, MergedKey> keys;
  for_each_block([&](ThreadBlock& b) {
    s.ops_recorded += b.ops_recorded.get();
    s.ops_executed += b.ops_executed.get();
    s.ops_eliminated += b.ops_eliminated.get();
    s.segments_run += b.segments_run.get();
    s.intermediate_bytes += b.intermediate_bytes.get();
    for (std::size_t i = 0; i < kNumCutReasons; ++i) s.segments_by_reason[i] += b.by_reason[i].get();
    std::lock_guard lock(b.keys_mu);
    for (const LocalKey& k : b.keys)
      if (k.runs[0].get() + k.runs[1].get() > 0) merge(keys[k.key], k);
  });
  fill_jit_stats(s.jit);
  fill_comm_stats(s);

  s.distinct_keys = new_keys().distinct.load(std::memory_order_relaxed);
  std::vector<std::pair<std::uint64_t, const MergedKey*>> order;
  order.reserve(keys.size());
  for (const auto& [key, m] : keys) order.emplace_back(key, &m);
  const auto more_runs = [](const auto& a, const auto& b) {
    const std::uint64_t ra = a.second->runs[0] + a.second->runs[1], rb = b.second->runs[0] + b.second->runs[1];
    return ra != rb ? ra > rb : a.first < b.first;
  };
  const std::size_t shown = std::min(kTopKeys, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(), more_runs);
  for (std::size_t i = 0; i < shown; ++i) s.top_keys.push_back(key_stats(order[i].first, *order[i].second));
  s.cut_sites = cut_site_stats(kTopCutSites);
  s.recent_events = recent_events();
  s.tunables = tunable_stats(kTopTunables);
  return s;
}

}  // namespace kiln::profiler

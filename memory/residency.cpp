#include "memory/residency.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include <kiln/error.h>
#include <kiln/memory/memory.h>

#include "profiler/cut_sites.h"
#include "profiler/enabled.h"
#include "profiler/events.h"
#include "profiler/format.h"
#include "profiler/settings/settings.h"

namespace kiln::memory {
namespace {

struct Counters {
  std::atomic<std::uint64_t> evictions{0}, bytes_evicted{0}, recomputes{0}, recompute_ns{0}, ooms_avoided{0};
};
Counters& counters() {
  static Counters c;
  return c;
}

std::atomic<int>& policy_slot() {
  static std::atomic<int> p{static_cast<int>(
      policy_named(profiler::settings::read_text(profiler::settings::Id::EvictionPolicy)))};
  return p;
}

// What the counters and the timeline get of `r`, which freed `bytes`; its
// description only when the profiler records events.
Evicted eviction_of(const Resident& r, std::size_t bytes) {
  return {bytes, profiler::enabled() ? r.what() : std::string(), r.made_at()};
}

// Leaked, like the allocator's pools: storages freed by static destructors
// still find it.
struct Registry {
  std::mutex mu;
  std::vector<Resident*> residents;
  std::uint64_t rng = 0x9E3779B97F4A7C15ull;  // fixed: the same program evicts the same values

  std::size_t random_index() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return static_cast<std::size_t>(rng % residents.size());
  }

  // The evictable resident with the lowest score: among those no handle
  // refers to, if any can go; else among about sqrt(N) sampled, or every
  // resident when the sample found none. Values at the end of a long chain
  // of evicted producers, and values awaited by a reader about to run, only
  // when no other can go.
  Resident* pick() {
    const std::size_t n = residents.size();
    if (n == 0) return nullptr;
    const Policy p = policy();
    const std::uint64_t now = use_tick();
    Resident *best = nullptr, *best_long = nullptr;
    double best_score = 0, best_long_score = 0;
    auto consider = [&](Resident* r) {
      if (r->why_not_evictable()) return false;
      Candidate c = r->candidate(now);
      c.idle = std::max(c.idle, 1.0);
      const double s = score(p, c);
      const bool last = only_when_nothing_else(c);
      Resident*& slot = last ? best_long : best;
      double& slot_score = last ? best_long_score : best_score;
      if (!slot || s < slot_score) {
        slot = r;
        slot_score = s;
      }
      return !last;
    };
    // A value no handle refers to is read again only if a value made from
    // it is recomputed, where one the program holds will be read: under a
    // budget of 100-110% of the residual stack's unconstrained peak (JIT),
    // its dead matmul products (kept for the recipes of the bias adds fused
    // after them) stayed while the policy evicted activations the backward
    // pass then recomputed.
    for (Resident* r : residents)
      if (r->unreferenced()) consider(r);
    if (best) return best;
    const std::size_t wanted = std::max<std::size_t>(8, static_cast<std::size_t>(std::sqrt(static_cast<double>(n))));
    if (n <= wanted) {
      for (Resident* r : residents) consider(r);
    } else {
      std::size_t seen = 0;
      for (std::size_t draw = 0; draw < 4 * wanted && seen < wanted; ++draw) seen += consider(residents[random_index()]);
      if (!best)
        for (Resident* r : residents) consider(r);
    }
    return best ? best : best_long;
  }

  // When nothing is evictable: the largest last resort that can go now,
  // gone and appended to `evicted`; the bytes freed (0: none could).
  std::size_t evict_last_resort(std::vector<Evicted>& evicted) {
    std::vector<Resident*> last;
    for (Resident* r : residents)
      if (r->is_last_resort()) last.push_back(r);
    std::sort(last.begin(), last.end(),
              [](const Resident* a, const Resident* b) { return a->resident_bytes() > b->resident_bytes(); });
    for (Resident* r : last)
      if (const std::size_t freed = r->evict_last_resort()) {
        evicted.push_back(eviction_of(*r, freed));
        remove_resident(*r);
        return freed;
      }
    return 0;
  }
};

Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

}  // namespace

std::uint64_t use_tick() noexcept {
  static std::atomic<std::uint64_t> clock{0};
  return clock.fetch_add(1, std::memory_order_relaxed) + 1;
}

double score(Policy policy, const Candidate& c) {
  const double bytes = static_cast<double>(std::max<std::size_t>(c.bytes, 1));
  switch (policy) {
    case Policy::Dtr: return c.cost_ns / (bytes * c.idle);
    case Policy::DtrLocal: return c.own_cost_ns / (bytes * c.idle);
    case Policy::Lru: return 1.0 / c.idle;
    case Policy::Largest: return 1.0 / bytes;
  }
  return 0;
}

const char* policy_name(Policy policy) {
  switch (policy) {
    case Policy::Dtr: return "dtr";
    case Policy::DtrLocal: return "dtr_local";
    case Policy::Lru: return "lru";
    case Policy::Largest: return "largest";
  }
  return "?";
}

Policy policy_named(std::string_view name) {
  for (Policy p : {Policy::Dtr, Policy::DtrLocal, Policy::Lru, Policy::Largest})
    if (name == policy_name(p)) return p;
  throw ValueError(detail::cat("[set_eviction_policy] unknown policy '", name, "' (accepted: dtr, dtr_local, lru, largest)"));
}

Policy policy() { return static_cast<Policy>(policy_slot().load(std::memory_order_relaxed)); }
void set_policy(Policy p) { policy_slot().store(static_cast<int>(p), std::memory_order_relaxed); }

std::mutex& residency_mutex() { return registry().mu; }

void add_resident(Resident& r) {
  if (r.registry_slot != Resident::kUnregistered) return;
  std::vector<Resident*>& all = registry().residents;
  r.registry_slot = all.size();
  all.push_back(&r);
}

void remove_resident(Resident& r) {
  if (r.registry_slot == Resident::kUnregistered) return;
  std::vector<Resident*>& all = registry().residents;
  Resident* last = all.back();
  all[r.registry_slot] = last;
  last->registry_slot = r.registry_slot;
  all.pop_back();
  r.registry_slot = Resident::kUnregistered;
}

std::size_t evict_now(Resident& r, std::vector<Evicted>& evicted) {
  const std::size_t held = r.resident_bytes();
  if (!r.evict()) return 0;
  remove_resident(r);
  evicted.push_back(eviction_of(r, held));
  return held;
}

void note_evictions(const std::vector<Evicted>& evicted) {
  if (evicted.empty()) return;
  std::size_t freed = 0;
  for (const Evicted& e : evicted) {
    freed += e.bytes;
    profiler::log_event({profiler::EventKind::Evicted, 0, profiler::format_bytes(e.bytes) + " " + e.what, e.site});
  }
  Counters& c = counters();
  c.evictions.fetch_add(evicted.size(), std::memory_order_relaxed);
  c.bytes_evicted.fetch_add(freed, std::memory_order_relaxed);
}

bool make_room(std::size_t bytes) {
  Registry& reg = registry();
  std::size_t freed = 0;
  std::vector<Evicted> evicted;
  {
    std::lock_guard lock(reg.mu);
    while (freed < bytes) {
      Resident* victim = reg.pick();
      std::size_t held = 0;
      if (victim) held = evict_now(*victim, evicted);
      else if (!(held = reg.evict_last_resort(evicted))) break;
      freed += held;
    }
  }
  note_evictions(evicted);
  if (freed < bytes) return false;
  counters().ooms_avoided.fetch_add(1, std::memory_order_relaxed);
  return true;
}

std::string residents_report() {
  struct Row {
    std::size_t bytes;
    std::string what;
    const char* why;
  };
  std::vector<Row> rows;
  std::size_t evictable_bytes = 0, value_bytes = 0, values = 0;
  // What holds the memory that cannot go, summed by reason: the floor under
  // which no budget works for this program at this point.
  std::vector<std::pair<std::string_view, std::size_t>> by_reason;
  {
    Registry& reg = registry();
    std::lock_guard lock(reg.mu);
    values = reg.residents.size();
    for (Resident* r : reg.residents) {
      const char* why = r->why_not_evictable();
      value_bytes += r->resident_bytes();
      if (!why) {
        evictable_bytes += r->resident_bytes();
      } else {
        auto it = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& e) { return e.first == why; });
        if (it == by_reason.end()) by_reason.emplace_back(why, r->resident_bytes());
        else it->second += r->resident_bytes();
      }
      rows.push_back({r->resident_bytes(), {}, why});
    }
    constexpr std::size_t kShown = 8;
    std::vector<std::size_t> order(rows.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const std::size_t shown = std::min(kShown, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                      [&](std::size_t a, std::size_t b) { return rows[a].bytes > rows[b].bytes; });
    std::vector<Row> top;
    for (std::size_t i = 0; i < shown; ++i) {
      Row row = rows[order[i]];
      const Resident& r = *reg.residents[order[i]];
      row.what = r.what();
      if (r.made_at()) row.what += detail::cat(" (segment cut at ", profiler::site_location(r.made_at()).text, ")");
      top.push_back(std::move(row));
    }
    rows = std::move(top);
  }
  if (rows.empty()) return {};
  std::string out = detail::cat("; evictable now: ", profiler::format_bytes(evictable_bytes), " of ",
                                profiler::format_bytes(value_bytes), " in ", values, " values");
  // Blocks that are no value: workspaces, and values made before the budget
  // was set (they never registered; parameters and optimizer state, mostly).
  const std::uint64_t live = stats().live_bytes;
  if (live > value_bytes)
    by_reason.emplace_back("not values (kernel workspace), or made before the budget was set", live - value_bytes);
  std::sort(by_reason.begin(), by_reason.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (std::size_t i = 0; i < by_reason.size(); ++i)
    out += detail::cat(i == 0 ? "; what stays: " : ", ", profiler::format_bytes(by_reason[i].second), " ",
                       by_reason[i].first);
  out += "; the largest:";
  for (const Row& row : rows)
    out += detail::cat("\n  ", profiler::format_bytes(row.bytes), "  ", row.what, " -- ",
                       row.why ? row.why : "evictable");
  return out;
}

void note_recompute(std::int64_t ns) noexcept {
  counters().recomputes.fetch_add(1, std::memory_order_relaxed);
  counters().recompute_ns.fetch_add(static_cast<std::uint64_t>(std::max<std::int64_t>(ns, 0)),
                                    std::memory_order_relaxed);
}

ResidencyStats residency_stats() {
  const Counters& c = counters();
  ResidencyStats s;
  s.evictions = c.evictions.load(std::memory_order_relaxed);
  s.bytes_evicted = c.bytes_evicted.load(std::memory_order_relaxed);
  s.recomputes = c.recomputes.load(std::memory_order_relaxed);
  s.recompute_ms = static_cast<double>(c.recompute_ns.load(std::memory_order_relaxed)) / 1e6;
  s.ooms_avoided = c.ooms_avoided.load(std::memory_order_relaxed);
  return s;
}

}  // namespace kiln::memory

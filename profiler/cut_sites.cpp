#include "profiler/cut_sites.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "profiler/enabled.h"
#include "profiler/events.h"

namespace kiln::profiler {
namespace {

struct Site {
  Site(std::uintptr_t a, CutReason r) : address(a), reason(r) {}
  const std::uintptr_t address;
  const CutReason reason;
  std::atomic<std::uint64_t> count{0};
  std::optional<SourceLocation> location;  // under Table::mu, filled when first read
};

struct Table {
  std::mutex mu;
  std::deque<Site> sites;  // row id = index + 1
  std::unordered_map<std::uint64_t, std::uint32_t> ids;  // row_id(address, reason) -> id
};

Table& table() {
  static Table* instance = new Table;  // cuts at thread exit may come after static destruction
  return *instance;
}

// Exact for any user-space address (reasons fit in 4 bits).
std::uint64_t row_id(std::uintptr_t address, CutReason why) {
  return (static_cast<std::uint64_t>(address) << 4) ^ static_cast<std::uint64_t>(why);
}

// The previous cut of this thread: a loop cuts at the same place each time.
struct LastCut {
  std::uintptr_t address = 0;
  CutReason reason = CutReason::kCount;
  std::uint32_t id = 0;
  Site* site = nullptr;
};
thread_local LastCut t_last __attribute__((tls_model("initial-exec")));

// Finds or adds the row, logging the first sighting. Rows are never removed.
std::uint32_t lookup(std::uintptr_t address, CutReason why) {
  Table& t = table();
  std::unique_lock lock(t.mu);
  auto [it, added] = t.ids.try_emplace(row_id(address, why), 0);
  if (added) {
    t.sites.emplace_back(address, why);
    it->second = static_cast<std::uint32_t>(t.sites.size());
  }
  const std::uint32_t id = it->second;
  t_last = {address, why, id, &t.sites[id - 1]};
  lock.unlock();
  if (added) log_event({.kind = EventKind::CutSite, .detail = to_string(why), .site = id});
  return id;
}

}  // namespace

std::uint32_t note_cut(CutReason why) noexcept {
  if (!enabled()) return 0;
  // A thread's exit has no user frame to show.
  const std::uintptr_t address = why == CutReason::ThreadExit ? 0 : user_frame();
  std::uint32_t id = t_last.id;
  Site* site = t_last.site;
  if (t_last.address != address || t_last.reason != why || !site) {
    try {
      id = lookup(address, why);
      site = t_last.site;
    } catch (...) {
      return 0;  // no memory for a new row: this cut goes uncounted by site
    }
  }
  site->count.fetch_add(1, std::memory_order_relaxed);
  return id;
}

SourceLocation site_location(std::uint32_t id) {
  Table& t = table();
  std::uintptr_t address = 0;
  {
    std::lock_guard lock(t.mu);
    if (id == 0 || id > t.sites.size()) return describe(0);
    Site& s = t.sites[id - 1];
    if (s.location) return *s.location;
    address = s.address;
  }
  SourceLocation where = describe(address);  // slow: outside the lock that cuts take
  std::lock_guard lock(t.mu);
  t.sites[id - 1].location = where;
  return where;
}

std::vector<CutSiteStats> cut_site_stats(std::size_t limit) {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> counted;  // (count, id)
  {
    Table& t = table();
    std::lock_guard lock(t.mu);
    for (std::uint32_t i = 0; i < t.sites.size(); ++i)
      if (std::uint64_t n = t.sites[i].count.load(std::memory_order_relaxed)) counted.emplace_back(n, i + 1);
  }
  std::sort(counted.begin(), counted.end(), [](auto a, auto b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  if (counted.size() > limit) counted.resize(limit);
  std::vector<CutSiteStats> rows;
  for (auto [count, id] : counted) {
    SourceLocation where = site_location(id);
    CutReason why;
    {
      std::lock_guard lock(table().mu);
      why = table().sites[id - 1].reason;
    }
    rows.push_back({to_string(why), count, std::move(where.text), std::move(where.function), std::move(where.file),
                    where.line});
  }
  return rows;
}

void reset_cut_sites() noexcept {
  Table& t = table();
  std::lock_guard lock(t.mu);
  for (Site& s : t.sites) s.count.store(0, std::memory_order_relaxed);
}

}  // namespace kiln::profiler

#include "profiler/cut_sites.h"

#include <algorithm>
#include <deque>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "profiler/enabled.h"
#include "profiler/events.h"
#include "profiler/thread_block.h"

namespace kiln::profiler {
namespace {

// A row; its counts live in the threads' blocks (thread_block.h), so a cut
// bumps a counter of its own thread with no locked instruction.
struct Site {
  Site(std::uintptr_t a, CutReason r) : address(a), reason(r) {}
  const std::uintptr_t address;
  const CutReason reason;
  std::optional<SourceLocation> location;  // under Table::mu, filled when first read
  // Under Table::mu (note_new_key: once per new key).
  std::uint64_t new_keys = 0, new_structures = 0, last_structure = 0;
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
// `counter` is in the thread's block, valid while the block is (t_block set).
struct LastCut {
  std::uintptr_t address = 0;
  CutReason reason = CutReason::kCount;
  std::uint32_t id = 0;
  LocalCounter* counter = nullptr;
};
thread_local LastCut t_last __attribute__((tls_model("initial-exec")));

// Finds or adds the row, logging the first sighting. Rows are never removed.
std::uint32_t find_row(std::uintptr_t address, CutReason why) {
  Table& t = table();
  std::unique_lock lock(t.mu);
  auto [it, added] = t.ids.try_emplace(row_id(address, why), 0);
  if (added) {
    t.sites.emplace_back(address, why);
    it->second = static_cast<std::uint32_t>(t.sites.size());
  }
  const std::uint32_t id = it->second;
  lock.unlock();
  if (added) log_event({.kind = EventKind::CutSite, .detail = to_string(why), .site = id});
  return id;
}

}  // namespace

std::uint32_t note_cut(CutReason why) noexcept {
  if (!enabled()) return 0;
  // A thread's exit has no user frame to show.
  const std::uintptr_t address = why == CutReason::ThreadExit ? 0 : user_frame();
  if (t_last.address == address && t_last.reason == why && t_last.counter && detail::t_block) {
    t_last.counter->add(1);
    return t_last.id;
  }
  try {
    const std::uint32_t id = find_row(address, why);
    with_this_thread_block([&](ThreadBlock& b) {
      LocalCounter& counter = b.site_counter(id);
      counter.add(1);
      // Cached only for the thread's own block (not the retired one, used
      // by an exiting thread under the registry lock).
      t_last = {address, why, id, &b == detail::t_block ? &counter : nullptr};
    });
    return id;
  } catch (...) {
    return 0;  // no memory for a new row: this cut goes uncounted by site
  }
}

void note_new_key(std::uint32_t site, std::uint64_t structure) noexcept {
  Table& t = table();
  std::lock_guard lock(t.mu);
  if (site == 0 || site > t.sites.size()) return;
  Site& s = t.sites[site - 1];
  if (s.new_keys > 0 && structure != s.last_structure) ++s.new_structures;
  ++s.new_keys;
  s.last_structure = structure;
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
  std::unordered_map<std::uint32_t, std::uint64_t> counts;
  for_each_block([&](ThreadBlock& b) {
    std::lock_guard lock(b.keys_mu);
    for (const LocalSite& s : b.sites) counts[s.id] += s.count.get();
  });
  std::vector<std::pair<std::uint64_t, std::uint32_t>> counted;  // (count, id)
  for (auto [id, n] : counts)
    if (n) counted.emplace_back(n, id);
  std::sort(counted.begin(), counted.end(), [](auto a, auto b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  if (counted.size() > limit) counted.resize(limit);
  std::vector<CutSiteStats> rows;
  for (auto [count, id] : counted) {
    SourceLocation where = site_location(id);
    CutReason why;
    std::uint64_t new_keys = 0, new_structures = 0;
    {
      std::lock_guard lock(table().mu);
      const Site& s = table().sites[id - 1];
      why = s.reason;
      new_keys = s.new_keys;
      new_structures = s.new_structures;
    }
    rows.push_back({to_string(why), count, std::move(where.text), std::move(where.function), std::move(where.file),
                    where.line, new_keys, new_structures});
  }
  return rows;
}

void reset_cut_sites() noexcept {
  for_each_block([](ThreadBlock& b) {
    std::lock_guard lock(b.keys_mu);
    for (LocalSite& s : b.sites) s.count.clear();
  });
  std::lock_guard lock(table().mu);
  for (Site& s : table().sites) s.new_keys = s.new_structures = 0;
}

}  // namespace kiln::profiler

// A process-wide table of records by 64-bit key, created on first lookup
// and bounded: past `capacity` records the least recently looked-up eighth
// is dropped at once (one pass over the table per capacity/8 insertions).
// A record is shared: whoever looked it up keeps it alive while using it,
// so a dropped record dies only when its last user lets go; a later lookup
// of its key starts a new one.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "jit/tier1/config.h"
#include "profiler/jit_counters.h"

namespace kiln::jit {

/// `kDropped` is counted for each record dropped (kCount: not counted).
template <class T, profiler::JitEvent kDropped = profiler::JitEvent::kCount>
class KeyedTable {
 public:
  /// The record of `key`, created if absent; `created` says which.
  static std::shared_ptr<T> get(std::uint64_t key, bool* created = nullptr) {
    KeyedTable& t = table();
    std::vector<std::shared_ptr<T>> dropped;  // destroyed after the lock is released
    std::lock_guard lock(t.mu_);
    auto [it, added] = t.entries_.try_emplace(key);
    if (added) {
      it->second.record = std::make_shared<T>();
      if (t.entries_.size() > t.capacity_.load(std::memory_order_relaxed)) t.drop_oldest(dropped, key);
    }
    if (created) *created = added;
    it = t.entries_.find(key);
    it->second.last_use = ++t.clock_;
    return it->second.record;
  }

  /// The record of `key`, or null if there is none; a found record counts as used.
  static std::shared_ptr<T> find(std::uint64_t key) {
    KeyedTable& t = table();
    std::lock_guard lock(t.mu_);
    auto it = t.entries_.find(key);
    if (it == t.entries_.end()) return nullptr;
    it->second.last_use = ++t.clock_;  // a key run often stays, however old
    return it->second.record;
  }

  static std::size_t size() {
    KeyedTable& t = table();
    std::lock_guard lock(t.mu_);
    return t.entries_.size();
  }

  /// Takes effect at the next insertion (default: max_keys()).
  static void set_capacity(std::size_t records) { table().capacity_.store(std::max<std::size_t>(records, 8)); }

 private:
  struct Slot {
    std::shared_ptr<T> record;
    std::uint64_t last_use = 0;
  };

  static KeyedTable& table() {
    static KeyedTable* table = new KeyedTable;  // outlives static destruction
    return *table;
  }

  // Under mu_: moves the least recently used eighth (never `keep`) out.
  void drop_oldest(std::vector<std::shared_ptr<T>>& out, std::uint64_t keep) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> by_use;  // (last use, key)
    by_use.reserve(entries_.size());
    for (const auto& [key, slot] : entries_)
      if (key != keep) by_use.emplace_back(slot.last_use, key);
    const std::size_t n = std::max<std::size_t>(entries_.size() / 8, 1);
    std::nth_element(by_use.begin(), by_use.begin() + static_cast<std::ptrdiff_t>(n - 1), by_use.end());
    for (std::size_t i = 0; i < n; ++i) {
      auto it = entries_.find(by_use[i].second);
      out.push_back(std::move(it->second.record));
      entries_.erase(it);
    }
    if constexpr (kDropped != profiler::JitEvent::kCount) profiler::count(kDropped, n);
  }

  std::mutex mu_;
  std::unordered_map<std::uint64_t, Slot> entries_;
  std::uint64_t clock_ = 0;
  std::atomic<std::size_t> capacity_{max_keys()};
};

}  // namespace kiln::jit

// A process-wide table of records by 64-bit key, created on first lookup
// and never freed (a record may be in use by any thread until exit).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace kiln::jit {

template <class T>
class KeyedTable {
 public:
  static T& get(std::uint64_t key) {
    KeyedTable& t = table();
    std::lock_guard lock(t.mu_);
    auto& slot = t.entries_[key];
    if (!slot) slot = std::make_unique<T>();
    return *slot;
  }

  /// The record of `key`, or null if it was never looked up with get().
  static T* find(std::uint64_t key) {
    KeyedTable& t = table();
    std::lock_guard lock(t.mu_);
    auto it = t.entries_.find(key);
    return it == t.entries_.end() ? nullptr : it->second.get();
  }

 private:
  static KeyedTable& table() {
    static KeyedTable* table = new KeyedTable;  // outlives static destruction
    return *table;
  }

  std::mutex mu_;
  std::unordered_map<std::uint64_t, std::unique_ptr<T>> entries_;
};

}  // namespace kiln::jit

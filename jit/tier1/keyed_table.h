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
    static KeyedTable* table = new KeyedTable;  // outlives static destruction
    std::lock_guard lock(table->mu_);
    auto& slot = table->entries_[key];
    if (!slot) slot = std::make_unique<T>();
    return *slot;
  }

 private:
  std::mutex mu_;
  std::unordered_map<std::uint64_t, std::unique_ptr<T>> entries_;
};

}  // namespace kiln::jit

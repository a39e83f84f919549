#include "jit/kernels/gemm_prepacked.h"

#include <atomic>
#include <list>
#include <mutex>
#include <unordered_map>

#include <kiln/memory/memory.h>

#include "profiler/settings/settings.h"

namespace kiln::jit::kernels {
namespace {

struct KeyHash {
  std::size_t operator()(const PackedBKey& key) const noexcept {
    std::uint64_t h = key.content.storage * 0x9e3779b97f4a7c15ULL;
    for (std::uint64_t v : {key.content.writes, std::uint64_t(key.content.offset), std::uint64_t(key.row_stride),
                            std::uint64_t(key.col_stride), std::uint64_t(key.k), std::uint64_t(key.n),
                            std::uint64_t(key.kc), std::uint64_t(key.nc), std::uint64_t(key.nr),
                            std::uint64_t(key.element_bytes)})
      h = (h ^ v) * 0x100000001b3ULL;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

// Keys seen once (no panels) count too, so that their number stays bounded
// when a weight changes between every pair of calls.
constexpr std::size_t kMaxKeys = 4096;

class Cache {
 public:
  std::shared_ptr<const Workspace> find_or_fill(const PackedBKey& key, std::size_t bytes,
                                                const std::function<void(void*)>& fill) {
    {
      std::lock_guard lock(mu_);
      const std::uint64_t limit = limit_.load(std::memory_order_relaxed);
      auto it = entries_.find(key);
      if (it != entries_.end()) {
        touch(it->second);
        if (it->second.panels) {
          ++hits_;
          return it->second.panels;
        }
        if (bytes > limit) return nullptr;
      } else {
        if (limit == 0) return nullptr;
        remember(key);
        return nullptr;
      }
    }
    // Second sight: pack outside the lock (other threads' products go on).
    auto panels = std::make_shared<Workspace>(bytes);
    fill(panels->as<void>());
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return panels;  // dropped meanwhile: used once, not kept
    if (it->second.panels) return it->second.panels;  // another thread packed it meanwhile
    it->second.panels = panels;
    it->second.bytes = bytes;
    bytes_ += bytes;
    ++packed_;
    shrink();  // may drop this very entry, if others were used since it was seen
    return panels;
  }

  void set_limit(std::uint64_t bytes) {
    std::lock_guard lock(mu_);
    limit_.store(bytes, std::memory_order_relaxed);
    shrink();
  }
  std::uint64_t limit() const { return limit_.load(std::memory_order_relaxed); }

  void forget(std::uint64_t storage) {
    std::lock_guard lock(mu_);
    for (auto range = by_storage_.equal_range(storage); range.first != range.second;
         range = by_storage_.equal_range(storage))
      drop(entries_.find(range.first->second));
  }

  void clear() {
    std::lock_guard lock(mu_);
    while (!recent_.empty()) drop(entries_.find(recent_.back()));
  }

  PrepackStats stats() {
    std::lock_guard lock(mu_);
    return {hits_, packed_, bytes_};
  }

 private:
  struct Entry {
    std::shared_ptr<const Workspace> panels;  // null: seen once
    std::size_t bytes = 0;
    std::list<PackedBKey>::iterator use;  // its place in recent_, most recent first
  };

  void touch(Entry& e) { recent_.splice(recent_.begin(), recent_, e.use); }

  void remember(const PackedBKey& key) {
    recent_.push_front(key);
    entries_.emplace(key, Entry{nullptr, 0, recent_.begin()});
    by_storage_.emplace(key.content.storage, key);
    shrink();
  }

  // Panels a product is reading stay alive through its shared_ptr.
  void drop(std::unordered_map<PackedBKey, Entry, KeyHash>::iterator it) {
    auto [first, last] = by_storage_.equal_range(it->first.content.storage);
    for (; first != last; ++first)
      if (first->second == it->first) {
        by_storage_.erase(first);
        break;
      }
    bytes_ -= it->second.bytes;
    recent_.erase(it->second.use);
    entries_.erase(it);
  }

  // Least recently used first, down to the limits.
  void shrink() {
    const std::uint64_t limit = limit_.load(std::memory_order_relaxed);
    while (!recent_.empty() && (bytes_ > limit || entries_.size() > kMaxKeys)) drop(entries_.find(recent_.back()));
  }

  std::mutex mu_;
  std::atomic<std::uint64_t> limit_{profiler::settings::read_bytes(profiler::settings::Id::PrepackMaxBytes)};
  std::list<PackedBKey> recent_;
  std::unordered_map<PackedBKey, Entry, KeyHash> entries_;
  std::unordered_multimap<std::uint64_t, PackedBKey> by_storage_;  // each entry under its storage's serial
  std::uint64_t bytes_ = 0, hits_ = 0, packed_ = 0;
};

// Never destroyed: panels go back to the memory pool, which may already be
// gone at exit.
Cache& cache() {
  static Cache* c = new Cache;
  return *c;
}

}  // namespace

std::shared_ptr<const Workspace> prepacked_b(const PackedBKey& key, std::size_t bytes,
                                             const std::function<void(void*)>& fill) {
  if (memory::budget() != 0) {
    cache().clear();  // what was kept before the budget was set: it could not be evicted
    return nullptr;
  }
  return cache().find_or_fill(key, bytes, fill);
}

void forget_prepacked(std::uint64_t storage) { cache().forget(storage); }

void set_prepack_limit(std::uint64_t bytes) { cache().set_limit(bytes); }
std::uint64_t prepack_limit() { return cache().limit(); }
PrepackStats prepack_stats() { return cache().stats(); }

}  // namespace kiln::jit::kernels

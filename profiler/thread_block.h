// Per-thread counter blocks: the profiler's hot path takes no lock.
//
// Each thread bumps its own block with plain loads and stores on relaxed
// atomics (one writer, so no read-modify-write is needed, and readers on
// other threads see whole values). snapshot() sums the blocks under the
// registry lock. A block's per-key records live in a deque (stable
// addresses) that only its thread appends to, under the block's mutex, so
// a reader can walk it; lookups by the owner need no lock. When a thread
// exits, its block is folded into the `retired` block.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <unordered_map>

#include <kiln/profiler/stats.h>

namespace kiln::profiler {

/// A counter with one writer: add() is a load and a store, not a locked add.
class LocalCounter {
 public:
  void add(std::uint64_t n) noexcept { v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed); }
  std::uint64_t get() const noexcept { return v_.load(std::memory_order_relaxed); }
  void clear() noexcept { v_.store(0, std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> v_{0};
};

/// One segment key as one thread saw it. Tier 0 = index 0, tier 1 = index 1.
struct LocalKey {
  explicit LocalKey(std::uint64_t k) : key(k) {}
  const std::uint64_t key;
  std::array<LocalCounter, 2> runs, nanoseconds;
  LocalCounter bytes;
  std::atomic<std::uint32_t> ops{0};
  std::atomic<std::uint8_t> last_reason{0};
  std::atomic<std::int64_t> last_ns{0};
  std::atomic<std::uint64_t> epoch{0};  // reset() epoch of its latest run
  // How its first run (this epoch, on this thread) was cut.
  static constexpr std::uint8_t kNoReason = 0xff;
  std::atomic<std::uint8_t> first_reason{kNoReason};
  std::atomic<std::uint32_t> first_site{0};
  std::atomic<std::int64_t> first_ns{0};
};

/// Adds `from`'s counts into `to` and takes its latest and earliest runs'
/// fields where they are later / earlier.
void merge_key(LocalKey& to, const LocalKey& from);

/// Records a thread keeps at most (KILN_JIT_MAX_KEYS, or what
/// set_key_record_limit set): past it, the least recently run half goes.
std::size_t key_record_limit() noexcept;
void set_key_record_limit(std::size_t keys) noexcept;

/// How often one thread cut at one cut-site row (cut_sites.h).
struct LocalSite {
  explicit LocalSite(std::uint32_t i) : id(i) {}
  const std::uint32_t id;
  LocalCounter count;
};

struct ThreadBlock {
  LocalCounter ops_recorded, ops_executed, ops_eliminated, segments_run, intermediate_bytes;
  std::array<LocalCounter, kNumCutReasons> by_reason;

  std::mutex keys_mu;  // the owner appends to `keys` and `sites` under it; readers walk them under it
  std::deque<LocalKey> keys;
  std::deque<LocalSite> sites;
  // Owner only (and the registry lock holder once the owner is gone).
  std::unordered_map<std::uint64_t, LocalKey*> index;
  std::array<LocalKey*, 16> recent{};  // direct-mapped by the key's low bits
  std::unordered_map<std::uint32_t, LocalSite*> site_index;

  /// The record of `key` in this block (created if new; owner only). A
  /// full block first drops its least recently run half.
  LocalKey& key_record(std::uint64_t key);
  /// The counter of cut-site row `id` in this block (created if new; owner only).
  LocalCounter& site_counter(std::uint32_t id);

 private:
  void drop_least_recent_keys();
};

/// Runs `fn(block)` on the calling thread's block; on a thread that is
/// exiting (its block folded already), on the retired block under the lock.
template <class F>
void with_this_thread_block(F&& fn);

/// Calls `fn(block)` for every live block and the retired one, under the
/// registry lock (snapshot, reset).
template <class F>
void for_each_block(F&& fn);

// ---- implementation -------------------------------------------------------

namespace detail {
extern thread_local ThreadBlock* t_block __attribute__((tls_model("initial-exec")));
ThreadBlock* create_this_thread_block();  // null when the thread is exiting
std::mutex& registry_mutex();
ThreadBlock& retired_block();  // guarded by registry_mutex()
void visit_live_blocks(void (*visit)(ThreadBlock&, void*), void* context);  // under registry_mutex()
}  // namespace detail

template <class F>
void with_this_thread_block(F&& fn) {
  ThreadBlock* b = detail::t_block;
  if (!b) b = detail::create_this_thread_block();
  if (b) {
    fn(*b);
    return;
  }
  std::lock_guard lock(detail::registry_mutex());
  fn(detail::retired_block());
}

template <class F>
void for_each_block(F&& fn) {
  std::lock_guard lock(detail::registry_mutex());
  detail::visit_live_blocks([](ThreadBlock& b, void* f) { (*static_cast<F*>(f))(b); }, &fn);
  fn(detail::retired_block());
}

}  // namespace kiln::profiler

#include "profiler/thread_block.h"

#include "profiler/settings/settings.h"

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

namespace kiln::profiler {
namespace detail {

thread_local ThreadBlock* t_block __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

struct Registry {
  std::mutex mu;
  std::vector<ThreadBlock*> live;
  ThreadBlock retired;
};

// Never destroyed: threads that exit after main() still record their last segment.
Registry& registry() {
  static Registry* instance = new Registry;
  return *instance;
}

void add_into(LocalCounter& to, const LocalCounter& from) { to.add(from.get()); }

// Adds `from` into `to` (the retired block); caller holds the registry lock.
void fold(ThreadBlock& to, ThreadBlock& from) {
  const std::pair<LocalCounter*, const LocalCounter*> totals[] = {
      {&to.ops_recorded, &from.ops_recorded},
      {&to.ops_executed, &from.ops_executed},
      {&to.ops_eliminated, &from.ops_eliminated},
      {&to.segments_run, &from.segments_run},
      {&to.intermediate_bytes, &from.intermediate_bytes}};
  for (auto [t, f] : totals) add_into(*t, *f);
  for (std::size_t i = 0; i < kNumCutReasons; ++i) add_into(to.by_reason[i], from.by_reason[i]);
  for (LocalKey& k : from.keys) merge_key(to.key_record(k.key), k);
  for (LocalSite& site : from.sites) add_into(to.site_counter(site.id), site.count);
}

thread_local bool t_exited = false;

// Folds the thread's block into the retired one when the thread ends. Later
// records of the thread (its trace buffer's last flush) go to the retired
// block directly.
struct Owner {
  ThreadBlock* block = new ThreadBlock;
  ~Owner() {
    t_block = nullptr;
    t_exited = true;
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    fold(r.retired, *block);
    r.live.erase(std::find(r.live.begin(), r.live.end(), block));
    delete block;
  }
};

}  // namespace

ThreadBlock* create_this_thread_block() {
  if (t_exited) return nullptr;
  thread_local Owner owner;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    if (std::find(r.live.begin(), r.live.end(), owner.block) == r.live.end()) r.live.push_back(owner.block);
  }
  t_block = owner.block;
  return owner.block;
}

std::mutex& registry_mutex() { return registry().mu; }
ThreadBlock& retired_block() { return registry().retired; }

void visit_live_blocks(void (*visit)(ThreadBlock&, void*), void* context) {
  for (ThreadBlock* b : registry().live) visit(*b, context);
}

}  // namespace detail

namespace {
std::atomic<std::size_t> g_key_limit{0};  // 0: not read yet
}  // namespace

std::size_t key_record_limit() noexcept {
  std::size_t n = g_key_limit.load(std::memory_order_relaxed);
  if (n == 0) {
    try {
      n = static_cast<std::size_t>(settings::read_integer(settings::Id::JitMaxKeys));
    } catch (...) {
      // The JIT reports a bad value when it reads the same knob.
      n = static_cast<std::size_t>(std::stoll(settings::setting(settings::Id::JitMaxKeys).default_text));
    }
    g_key_limit.store(n, std::memory_order_relaxed);
  }
  return n;
}

void set_key_record_limit(std::size_t keys) noexcept { g_key_limit.store(std::max<std::size_t>(keys, 8)); }

void merge_key(LocalKey& to, const LocalKey& from) {
  for (int tier = 0; tier < 2; ++tier) {
    detail::add_into(to.runs[tier], from.runs[tier]);
    detail::add_into(to.nanoseconds[tier], from.nanoseconds[tier]);
  }
  detail::add_into(to.bytes, from.bytes);
  if (from.last_ns.load() >= to.last_ns.load()) {
    to.ops.store(from.ops.load());
    to.last_reason.store(from.last_reason.load());
    to.last_ns.store(from.last_ns.load());
  }
  if (from.first_reason.load() != LocalKey::kNoReason &&
      (to.first_reason.load() == LocalKey::kNoReason || from.first_ns.load() < to.first_ns.load())) {
    to.first_reason.store(from.first_reason.load());
    to.first_site.store(from.first_site.load());
    to.first_ns.store(from.first_ns.load());
  }
  to.epoch.store(std::max(to.epoch.load(), from.epoch.load()));
}

// A program whose structure keeps changing makes new keys without end; the
// block keeps the most recently run half of its records and forgets the
// rest (their runs stay in the block's totals). Once per limit/2 new keys.
void ThreadBlock::drop_least_recent_keys() {
  std::vector<const LocalKey*> order;
  order.reserve(keys.size());
  for (const LocalKey& k : keys) order.push_back(&k);
  const std::size_t keep = keys.size() / 2;
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                   [](const LocalKey* a, const LocalKey* b) { return a->last_ns.load() > b->last_ns.load(); });
  std::deque<LocalKey> kept;
  for (std::size_t i = 0; i < keep; ++i) merge_key(kept.emplace_back(order[i]->key), *order[i]);
  std::lock_guard lock(keys_mu);
  keys.swap(kept);
  index.clear();
  for (LocalKey& k : keys) index.emplace(k.key, &k);
  recent.fill(nullptr);
}

LocalKey& ThreadBlock::key_record(std::uint64_t key) {
  LocalKey*& slot = recent[key & (recent.size() - 1)];
  if (slot && slot->key == key) return *slot;
  auto it = index.find(key);
  if (it == index.end()) {
    if (keys.size() >= key_record_limit()) drop_least_recent_keys();
    std::lock_guard lock(keys_mu);
    it = index.emplace(key, &keys.emplace_back(key)).first;
  }
  LocalKey*& fresh = recent[key & (recent.size() - 1)];  // `slot` if no drop cleared the table
  fresh = it->second;
  return *fresh;
}

LocalCounter& ThreadBlock::site_counter(std::uint32_t id) {
  auto it = site_index.find(id);
  if (it == site_index.end()) {
    std::lock_guard lock(keys_mu);
    it = site_index.emplace(id, &sites.emplace_back(id)).first;
  }
  return it->second->count;
}

}  // namespace kiln::profiler

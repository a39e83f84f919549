#include "profiler/thread_block.h"

#include <algorithm>
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
  for (LocalKey& k : from.keys) {
    LocalKey& into = to.key_record(k.key);
    for (int tier = 0; tier < 2; ++tier) {
      add_into(into.runs[tier], k.runs[tier]);
      add_into(into.nanoseconds[tier], k.nanoseconds[tier]);
    }
    add_into(into.bytes, k.bytes);
    if (k.last_ns.load() >= into.last_ns.load()) {
      into.ops.store(k.ops.load());
      into.last_reason.store(k.last_reason.load());
      into.last_ns.store(k.last_ns.load());
    }
    into.epoch.store(std::max(into.epoch.load(), k.epoch.load()));
  }
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

LocalKey& ThreadBlock::key_record(std::uint64_t key) {
  LocalKey*& slot = recent[key & (recent.size() - 1)];
  if (slot && slot->key == key) return *slot;
  auto it = index.find(key);
  if (it == index.end()) {
    std::lock_guard lock(keys_mu);
    it = index.emplace(key, &keys.emplace_back(key)).first;
  }
  slot = it->second;
  return *slot;
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

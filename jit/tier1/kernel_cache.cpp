#include "jit/tier1/kernel_cache.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>

#include <kiln/error.h>
#include <kiln/settings.h>

#include "jit/orc/session.h"
#include "jit/tier1/compile_queue.h"
#include "jit/tier1/config.h"
#include "jit/tier1/disk_cache.h"
#include "profiler/enabled.h"
#include "profiler/events.h"
#include "profiler/jit_counters.h"
#include "profiler/settings/settings.h"

namespace kiln::jit {
namespace {

constexpr double kHeatHalfLifeNs = 1e9;

std::atomic<std::int64_t>& cold_after_ms() {
  static std::atomic<std::int64_t> ms{
      static_cast<std::int64_t>(profiler::settings::read_duration(profiler::settings::Id::CompileColdAfter))};
  return ms;
}

}  // namespace


const char* to_string(KernelState s) {
  switch (s) {
    case KernelState::Interpreted: return "interpreted";
    case KernelState::Queued: return "queued";
    case KernelState::Compiling: return "compiling";
    case KernelState::Compiled: return "compiled";
    case KernelState::Failed: return "failed";
    case KernelState::Demoted: return "demoted";
  }
  return "?";
}

double KernelEntry::heat(std::int64_t now) const {
  const double age = static_cast<double>(now - heat_at_ns.load(std::memory_order_relaxed));
  return heat_ns.load(std::memory_order_relaxed) * std::exp2(-std::max(age, 0.0) / kHeatHalfLifeNs);
}

// Racing updates may lose a sample: heat only orders the queue.
void KernelEntry::add_heat(double ns, std::int64_t now) {
  heat_ns.store(heat(now) + ns, std::memory_order_relaxed);
  heat_at_ns.store(now, std::memory_order_relaxed);
}

std::int64_t cold_after_ns() { return cold_after_ms().load(std::memory_order_relaxed) * 1'000'000; }
void set_compile_cold_after(std::chrono::milliseconds after) {
  if (after.count() < 1)
    throw ValueError(detail::cat("[set_compile_cold_after] the time must be at least 1 ms, got ", after.count()));
  cold_after_ms().store(after.count());
}

void set_max_kernels(std::size_t kernels) {
  if (kernels < 8) throw ValueError(detail::cat("[set_max_kernels] the bound must be at least 8 kernels, got ", kernels));
  KernelCache::instance().set_capacity(kernels);
}

KernelCache& KernelCache::instance() {
  static KernelCache* cache = new KernelCache;  // entries hold code that may run until exit
  return *cache;
}

std::shared_ptr<KernelEntry> KernelCache::find_or_add(const KernelSpec& spec, bool* existed) {
  std::uint64_t key = spec.key();
  std::vector<std::shared_ptr<KernelEntry>> dropped;  // destroyed after the lock is released
  std::lock_guard lock(mu_);
  auto [it, added] = entries_.try_emplace(key);
  *existed = !added;
  if (!added) return it->second;
  auto entry = std::make_shared<KernelEntry>(spec);
  it->second = entry;
  if (entries_.size() > capacity_) dropped = drop_unused();
  return entry;
}

// Entries only the cache holds (use_count 1: no segment record, no run, no
// queued compile has them), least recently run first, down to 7/8 of the
// capacity, so that a pass over the table comes once per capacity/8 kernels.
std::vector<std::shared_ptr<KernelEntry>> KernelCache::drop_unused() {
  std::vector<std::pair<std::int64_t, std::uint64_t>> unused;  // (last run, key)
  for (const auto& [key, entry] : entries_)
    if (entry.use_count() == 1) unused.emplace_back(entry->last_run_ns.load(std::memory_order_relaxed), key);
  const std::size_t target = capacity_ - capacity_ / 8;
  const std::size_t n = std::min(unused.size(), entries_.size() > target ? entries_.size() - target : 0);
  std::nth_element(unused.begin(), unused.begin() + static_cast<std::ptrdiff_t>(n), unused.end());
  std::vector<std::shared_ptr<KernelEntry>> dropped;
  for (std::size_t i = 0; i < n; ++i) {
    auto it = entries_.find(unused[i].second);
    dropped.push_back(std::move(it->second));
    entries_.erase(it);
  }
  profiler::count(profiler::JitEvent::KernelEvicted, n);
  return dropped;
}

void KernelCache::set_capacity(std::size_t entries) {
  std::lock_guard lock(mu_);
  capacity_ = std::max<std::size_t>(entries, 8);
}

bool KernelCache::is_compiled(std::uint64_t key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  return it != entries_.end() && it->second->fn.load() != nullptr;
}

std::size_t KernelCache::size() {
  std::lock_guard lock(mu_);
  return entries_.size();
}

namespace {

std::mutex g_hook_mu;
std::function<void(std::uint64_t)>& before_compile_hook() {
  static auto* hook = new std::function<void(std::uint64_t)>;
  return *hook;
}

// "kernel 0x…(add, mul, tanh, …): <message>", for stats and logs.
std::string detail_failure(const KernelSpec& spec, const char* message) {
  std::string ops;
  for (std::size_t i = 0; i < spec.instrs.size() && i < 6; ++i) ops += (i ? ", " : "") + std::string(trace::name(spec.instrs[i].op));
  if (spec.instrs.size() > 6) ops += ", ...";
  char key[24];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(spec.key()));
  return "kernel 0x" + std::string(key) + " (" + ops + "): " + message;
}

// Gives `entry` up: it stays on tier 0 (or on the code it has).
void give_up(KernelEntry& entry, const std::string& why) {
  profiler::record_failure(why);
  profiler::log_event({.kind = profiler::EventKind::Failed, .key = entry.key, .detail = why});
  std::lock_guard lock(entry.mu);
  entry.failure = why;
  if (entry.fn.load() == nullptr) entry.state.store(KernelState::Failed);
}

void publish(KernelEntry& entry, LinkedKernel linked, int level, double ms) {
  bool swap = entry.fn.load() != nullptr;
  {
    std::lock_guard lock(entry.mu);
    entry.compile_ms = ms;
    entry.code.push_back(std::move(linked.code));
  }
  entry.opt_level.store(level);
  entry.fn.store(linked.fn, std::memory_order_release);
  entry.state.store(KernelState::Compiled);
  if (swap) profiler::count(profiler::JitEvent::HotSwap);
  if (swap) profiler::log_event({.kind = profiler::EventKind::Swapped, .key = entry.key, .detail = level == 3 ? "O3" : "O1"});
}

// Publishes the kernel's object from the disk cache, if it is there.
bool load_from_disk(KernelEntry& entry) {
  CachedKernel cached = disk_cache_load(entry.key, OrcSession::instance());
  if (!cached.fn) return false;
  const int level = cached.opt_level;
  publish(entry, std::move(cached), level, 0);
  profiler::log_event({.kind = profiler::EventKind::Compiled, .key = entry.key, .detail = "disk cache"});
  return true;
}

void compile_now(const std::shared_ptr<KernelEntry>& entry, int level, const std::atomic<bool>& abandoned) {
  OrcSession& orc = OrcSession::instance();
  if (level == 1 && entry->fn.load() == nullptr && load_from_disk(*entry)) return;
  if (entry->fn.load() == nullptr) entry->state.store(KernelState::Compiling);
  std::function<void(std::uint64_t)> hook;
  {
    std::lock_guard lock(g_hook_mu);
    hook = before_compile_hook();
  }
  if (hook) hook(entry->key);
  const std::int64_t start = profiler::now_ns();
  try {
    CompiledKernel k = orc.compile(entry->spec, CompileOptions{level});
    if (abandoned.load()) return;  // past its time bound: the kernel was given up
    profiler::record_compile_ms(k.compile_ms);
    profiler::count(profiler::JitEvent::CompileDone);
    publish(*entry, k, level, k.compile_ms);
    profiler::log_event({.kind = profiler::EventKind::Compiled, .key = entry->key, .detail = level == 3 ? "O3" : "O1",
                         .start_ns = start, .duration_ns = profiler::now_ns() - start});
    disk_cache_store(entry->key, level, k.object, orc);
  } catch (const std::exception& e) {
    if (abandoned.load()) return;
    profiler::count(profiler::JitEvent::CompileFailed);
    give_up(*entry, detail_failure(entry->spec, e.what()));
  }
}

}  // namespace

// A thread that queued compiles waits for them when it exits. For the main
// thread that is at exit(), before static destructors run (thread-locals
// go first), so no compile is still inside LLVM while its statics die
// (a compile past its time bound is not waited for).
struct DrainAtThreadExit {
  ~DrainAtThreadExit() { wait_for_compile_queue(); }
};

namespace {
void drain_at_thread_exit() {
  thread_local DrainAtThreadExit drain;
  (void)drain;
}

// The main thread drains too, whichever thread queued: a product running on
// a kernel thread queues its GEMM tile's compile from there, that thread
// outlives main, and exit() then ran static destructors while LLVM was
// registering its passes for the compile ("double free or corruption" in
// 3 of 300 runs of a 2 ms batched-matmul test with a cold cache). Set when
// libkiln loads, on the thread that loads it.
[[maybe_unused]] const bool g_loader_drains = (drain_at_thread_exit(), true);
}  // namespace

void run_in_background(std::function<void()> job) {
  drain_at_thread_exit();
  if (compile_sync()) {
    job();
    return;
  }
  CompileJob background;
  background.run = [job = std::move(job)](const std::atomic<bool>&) { job(); };
  submit_compile_job(std::move(background));
}

void request_compile(const std::shared_ptr<KernelEntry>& entry, int opt_level) {
  if (opt_level == 1) {
    KernelState interpreted = KernelState::Interpreted;
    if (entry->fn.load() != nullptr || !entry->state.compare_exchange_strong(interpreted, KernelState::Queued)) return;
    // An object on disk loads in well under a millisecond: take it now.
    if (disk_cache_has(entry->key) && load_from_disk(*entry)) return;
  }
  drain_at_thread_exit();
  profiler::count(profiler::JitEvent::CompileRequested);
  const char* level = opt_level == 3 ? "O3" : "O1";
  profiler::log_event({.kind = profiler::EventKind::Queued, .key = entry->key, .detail = level});
  entry->last_run_ns.store(profiler::now_ns(), std::memory_order_relaxed);
  CompileJob job{
      .run = [entry, opt_level](const std::atomic<bool>& abandoned) { compile_now(entry, opt_level, abandoned); },
      .heat = [entry] { return entry->heat(profiler::now_ns()); },
      .cold = [entry] { return profiler::now_ns() - entry->last_run_ns.load(std::memory_order_relaxed) > cold_after_ns(); },
      .on_drop =
          [entry, opt_level, level] {
            // Back to where a later hot run queues it again.
            if (opt_level == 3) entry->upgrade_queued.store(false);
            KernelState queued = KernelState::Queued;
            entry->state.compare_exchange_strong(queued, KernelState::Interpreted);
            profiler::log_event({.kind = profiler::EventKind::Dropped, .key = entry->key, .detail = level});
          },
      .on_timeout =
          [entry, level](std::chrono::milliseconds bound) {
            give_up(*entry, detail_failure(entry->spec, detail::cat("compile at ", level, " gave up after its time bound of ",
                                                                    bound.count(), " ms")
                                                            .c_str()));
          }};
  const std::uint64_t id = submit_compile_job(std::move(job));
  if (compile_sync()) wait_for_compile_job(id);
}

void wait_for_compiles() { wait_for_compile_queue(); }

void set_before_compile_hook(std::function<void(std::uint64_t)> hook) {
  std::lock_guard lock(g_hook_mu);
  before_compile_hook() = std::move(hook);
}

}  // namespace kiln::jit

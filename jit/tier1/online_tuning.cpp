#include "jit/tier1/online_tuning.h"

#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "jit/orc/session.h"
#include "jit/tuning/background_tuning.h"
#include "jit/tuning/kernel_targets.h"
#include "jit/tuning/kernel_tuning.h"
#include "jit/tuning/tuning_store.h"
#include "profiler/enabled.h"
#include "profiler/events.h"
#include "profiler/jit_counters.h"

namespace kiln::jit {
namespace {

// As for products (gemm_tuning.cpp): a kernel run this often is worth a
// search. Only kernels of 2^18 elements or more are tunable groups, so a
// run takes tens of microseconds at least.
constexpr std::uint64_t kOnlineAfterRuns = 32;

// The knobs each key's search found, by tuning key; none for a key that
// could not be searched. Kept for the process: a key is searched once.
struct Winners {
  std::mutex mutex;
  std::unordered_map<std::string, std::optional<KernelKnobs>> by_key;
};

Winners& winners() {
  static Winners& w = *new Winners;  // never destroyed: a background job may end while the process exits
  return w;
}

// What the search measures for `spec`'s key: the kernel itself, unless it
// takes scalars (tune_kernel runs kernels without them); then the `kiln
// tune` target with the same key, if there is one.
std::optional<KernelSpec> measured_for(const KernelSpec& spec) {
  if (spec.scalars.empty()) return spec;
  if (std::optional<tuning::FusedKernelTarget> t = tuning::fused_target_of(spec))
    return tuning::fused_kernel_spec(t->name, t->shape);
  return std::nullopt;
}

// The winner of `key`'s search, searching `spec` first unless an earlier
// job did. A search that fails leaves the key with none.
std::optional<KernelKnobs> winner_for(const std::string& key, const KernelSpec& spec) {
  Winners& w = winners();
  {
    std::lock_guard lock(w.mutex);
    if (auto it = w.by_key.find(key); it != w.by_key.end()) return it->second;
  }
  std::optional<KernelKnobs> found;
  if (std::optional<KernelSpec> measured = measured_for(spec)) {
    const std::int64_t start = profiler::now_ns();
    try {
      autotune::SearchOptions options;
      options.budget_seconds = tuning::online_budget_seconds();
      const tuning::KernelTuneResult r = tuning::tune_kernel(*measured, options);
      found = r.best;
      tuning::note_tuned(key, r.heuristic_seconds, r.best_seconds, start);
    } catch (const std::exception& e) {
      profiler::record_failure("online tuning of " + key + ": " + e.what());
    }
  }
  std::lock_guard lock(w.mutex);
  return w.by_key.emplace(key, found).first->second;  // the first search's winner stays
}

}  // namespace

void note_online_run(const FusedGroup& group, KernelEntry& kernel) {
  if (!group.tunable || std::strcmp(group.tunable->config, "heuristic") != 0 ||
      kernel.compiled_runs.load(std::memory_order_relaxed) < kOnlineAfterRuns ||
      kernel.online_requested.load(std::memory_order_relaxed) ||
      tuning::autotune_mode() != AutotuneMode::Online || kernel.online_requested.exchange(true))
    return;
  tuning::tune_in_background([entry = kernel.shared_from_this(), key = group.tunable->key] {
    const std::optional<KernelKnobs> knobs = winner_for(key, entry->spec);
    if (!knobs) return;
    if (!(*knobs == entry->spec.knobs)) publish_tuned(*entry, *knobs);
    entry->online_done.store(true, std::memory_order_release);
  });
}

void publish_tuned(KernelEntry& kernel, const KernelKnobs& knobs) {
  const std::int64_t start = profiler::now_ns();
  KernelSpec spec = kernel.spec;
  spec.knobs = knobs;
  CompiledKernel compiled = OrcSession::instance().compile(spec, {3});
  publish_tuned(kernel, {compiled.fn, knobs}, std::move(compiled.code), start);
}

void publish_tuned(KernelEntry& kernel, KernelEntry::TunedCode tuned, std::shared_ptr<const KernelCode> code,
                   std::int64_t start_ns) {
  auto owned = std::make_unique<const KernelEntry::TunedCode>(tuned);
  const KernelEntry::TunedCode* published = owned.get();
  {
    std::lock_guard lock(kernel.mu);
    if (kernel.tuned_code) return;
    kernel.code.push_back(std::move(code));
    kernel.tuned_code = std::move(owned);
  }
  kernel.tuned.store(published, std::memory_order_release);
  profiler::count(profiler::JitEvent::HotSwap);
  profiler::log_event({.kind = profiler::EventKind::Swapped, .key = kernel.key, .detail = "tuned", .start_ns = start_ns,
                       .duration_ns = profiler::now_ns() - start_ns});
}

}  // namespace kiln::jit

// The in-memory kernel cache: one entry per KernelSpec key, shared by every
// segment whose plan contains that kernel. An entry moves
// interpreted -> queued -> compiling -> compiled, or to failed / demoted
// (a queued kernel that went cold goes back to interpreted). Its code is
// published with an atomic store, so a run that loaded the old pointer
// finishes on it: every code an entry published stays linked while the
// entry lives, and a run holds the entry (through its segment's record).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "jit/fusion/kernel_spec.h"
#include "jit/orc/session.h"
#include "jit/tier1/config.h"
#include "jit/tier1/tier_comparison.h"

namespace kiln::jit {

enum class KernelState : std::uint8_t { Interpreted, Queued, Compiling, Compiled, Failed, Demoted };
const char* to_string(KernelState s);

struct KernelEntry : std::enable_shared_from_this<KernelEntry> {
  explicit KernelEntry(KernelSpec s) : spec(std::move(s)), key(spec.key()) {}

  const KernelSpec spec;  // the immutable snapshot compile tasks work from
  const std::uint64_t key;
  std::atomic<CompiledFn> fn{nullptr};
  std::atomic<KernelState> state{KernelState::Interpreted};
  std::atomic<int> opt_level{0};        // level of the published code (0 = none)
  std::atomic<bool> upgrade_queued{false};

  // Feedback: whether the compiled code is slower than tier 0 (written by
  // the running threads), and its runs (for the O3 upgrade and sampling).
  TierComparison tiers;
  std::atomic<std::uint64_t> compiled_runs{0};

  // Demand, for the compile queue: the time of its last run (either tier,
  // on profiler::now_ns's clock) and its recent tier-0 time, decayed by
  // half every kHeatHalfLifeNs.
  std::atomic<std::int64_t> last_run_ns{0};
  std::atomic<double> heat_ns{0};
  std::atomic<std::int64_t> heat_at_ns{0};
  /// Adds `ns` of tier-0 time spent at `now`.
  void add_heat(double ns, std::int64_t now);
  /// The decayed heat at `now`.
  double heat(std::int64_t now) const;

  // Online tuning (online_tuning.h): the kernel's code with the knobs its
  // tuning key's search found, once published; a run takes it over `fn`
  // and launches with its knobs. Set once, owned by `tuned_code`.
  struct TunedCode {
    CompiledFn fn;
    KernelKnobs knobs;
  };
  std::atomic<const TunedCode*> tuned{nullptr};
  std::atomic<bool> online_requested{false};  // its tuning job was queued
  std::atomic<bool> online_done{false};       // that job ended: its runs report their knobs as "online"

  std::mutex mu;           // guards the fields below
  std::string failure;     // why it failed or was demoted
  double compile_ms = 0;   // of the published code
  // Every code it published (O1, O3, a tuned variant; in the order they
  // came): a run that loaded an older pointer may still be in it, and
  // holds this entry meanwhile.
  std::vector<std::shared_ptr<const KernelCode>> code;
  std::unique_ptr<const TunedCode> tuned_code;
};

/// The process-wide cache. `find_or_add` returns the shared entry of `spec`.
/// Bounded: past its capacity, entries no segment record uses any more go,
/// least recently run first (their code with them, once no run holds them).
class KernelCache {
 public:
  static KernelCache& instance();
  std::shared_ptr<KernelEntry> find_or_add(const KernelSpec& spec, bool* existed);
  std::size_t size();
  /// True when the kernel of `key` has published code.
  bool is_compiled(std::uint64_t key);
  /// Default max_kernels() (kiln::jit::set_max_kernels); takes effect at
  /// the next insertion.
  void set_capacity(std::size_t entries);

 private:
  std::vector<std::shared_ptr<KernelEntry>> drop_unused();  // under mu_

  std::mutex mu_;
  std::unordered_map<std::uint64_t, std::shared_ptr<KernelEntry>> entries_;
  std::size_t capacity_ = max_kernels();
};

/// Queues `entry` for compilation at `opt_level` (1, or 3 for an upgrade)
/// in the compile queue (compile_queue.h: hottest first, cold ones dropped,
/// each under a time bound); with KILN_JIT_SYNC=1 waits for it. The disk
/// cache is consulted first. A kernel already queued, compiled or failed
/// is not queued again at 1.
void request_compile(const std::shared_ptr<KernelEntry>& entry, int opt_level);

/// Runs on the compile thread before each compile from source, with the
/// kernel's key (a test forces a compile past its time bound with it).
void set_before_compile_hook(std::function<void(std::uint64_t kernel_key)> hook);

/// A kernel not run for this long (either tier) is cold: its queued
/// compile is dropped (KILN_COMPILE_COLD_MS, default 5 s; set by
/// kiln::jit::set_compile_cold_after).
std::int64_t cold_after_ns();
/// Waits until no compile is queued or running (tests, shutdown, kiln::compile).
void wait_for_compiles();
/// Runs `job` in the JIT's background arena after the work queued before
/// it (the autotuner's online tuning), or at once with KILN_JIT_SYNC=1.
/// wait_for_compiles() waits for it too.
void run_in_background(std::function<void()> job);

}  // namespace kiln::jit

// The in-memory kernel cache: one entry per KernelSpec key, shared by every
// segment whose plan contains that kernel. An entry moves
// interpreted -> queued -> compiling -> compiled, or to failed / demoted;
// its code is published with an atomic store, so a run that loaded the old
// pointer finishes on it (compiled code is never freed while the process
// lives, so no run can outlive the code it started with).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "jit/fusion/kernel_spec.h"

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

  // Feedback: average nanoseconds per element on each tier (exponential
  // moving averages; written by the running threads, read for decisions).
  std::atomic<double> t0_ns_per_elem{0};
  std::atomic<double> t1_ns_per_elem{0};
  std::atomic<std::uint64_t> compiled_runs{0};

  std::mutex mu;           // guards the fields below
  std::string failure;     // why it failed or was demoted
  double compile_ms = 0;   // of the published code
};

/// The process-wide cache. `find_or_add` returns the shared entry of `spec`.
class KernelCache {
 public:
  static KernelCache& instance();
  std::shared_ptr<KernelEntry> find_or_add(const KernelSpec& spec, bool* existed);
  std::size_t size();
  /// True when the kernel of `key` has published code.
  bool is_compiled(std::uint64_t key);

 private:
  std::mutex mu_;
  std::unordered_map<std::uint64_t, std::shared_ptr<KernelEntry>> entries_;
};

/// Queues `entry` for compilation at `opt_level` (1, or 3 for an upgrade):
/// a background task in the JIT's own TBB arena (concurrency 1), or inline
/// with KILN_JIT_SYNC=1. The disk cache is consulted first.
void request_compile(const std::shared_ptr<KernelEntry>& entry, int opt_level);
/// Waits until no compile is queued or running (tests, shutdown, kiln::compile).
void wait_for_compiles();
/// Runs `job` in the JIT's background arena after the work queued before
/// it (the autotuner's online tuning), or at once with KILN_JIT_SYNC=1.
/// wait_for_compiles() waits for it too.
void run_in_background(std::function<void()> job);

}  // namespace kiln::jit

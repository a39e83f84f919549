// The compile queue: jobs waiting for the JIT's compile slot, and the slot.
//
// Compile jobs are taken hottest first (their `heat`: the tier-0 time the
// kernel spent recently), not in the order they came: when a program's
// structure keeps changing, thousands of keys may be queued, and a key that
// matters must not wait behind keys that went cold long ago. A job whose
// kernel went cold (`cold`) is dropped without running. Background work
// without heat (online tuning) runs after the compiles, in order.
//
// The slot is a thread of the queue's own. Each job runs under a time
// bound (compile_timeout()): a job still running past it is abandoned (its
// `abandoned` flag is set, `on_timeout` runs, and a fresh thread takes over
// the slot), so one stuck LLVM compile never stops later keys from
// compiling. The abandoned thread ends whenever its job returns; the job
// must then discard its result. A TBB task could not be abandoned so: its
// worker belongs to the pool the kernels run on.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace kiln::jit {

struct CompileJob {
  /// The work; `abandoned` turns true if it outlives the time bound.
  std::function<void(const std::atomic<bool>& abandoned)> run;
  /// Recent tier-0 time of the kernel (larger goes first); empty for
  /// background work, which runs after every compile, in order.
  std::function<double()> heat;
  /// True when the kernel went cold: the job is dropped unrun.
  std::function<bool()> cold;
  /// Called once when the job is dropped for being cold.
  std::function<void()> on_drop;
  /// Called once when the job is abandoned, with the bound it exceeded.
  std::function<void(std::chrono::milliseconds bound)> on_timeout;
};

/// Queues `job` and returns its id at once.
std::uint64_t submit_compile_job(CompileJob job);
/// Waits until job `id` has finished, been dropped or been abandoned.
void wait_for_compile_job(std::uint64_t id);
/// Waits until no job is queued or running (an abandoned one is not).
void wait_for_compile_queue();
/// Waits until every abandoned job's `run` has returned (and so has
/// discarded its result); it may never return while a job is stuck.
void wait_for_abandoned_compile_jobs();

/// The time bound of one job (KILN_COMPILE_TIMEOUT_MS, default 60 s;
/// 0 = none; set by kiln::jit::set_compile_timeout).
std::chrono::milliseconds compile_timeout();

}  // namespace kiln::jit

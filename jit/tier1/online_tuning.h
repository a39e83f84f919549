// Online tuning of the fused-kernel family (KILN_AUTOTUNE=online): a
// compiled kernel whose tuning key the database does not hold is tuned in
// the background once it has run kOnlineAfterRuns times, while the program
// keeps running it with the heuristic's knobs; the winner is compiled and
// hot-swapped in (jit/tuning/kernel_tuning.h measures; this file decides
// when, and publishes).
#pragma once

#include <cstdint>
#include <memory>

#include "jit/fusion/kernel_knobs.h"
#include "jit/fusion/partition.h"
#include "jit/tier1/kernel_cache.h"

namespace kiln::jit {

/// After a compiled run of `group` with `kernel`: queues the kernel's
/// tuning when online tuning is on, the group is tunable, its knobs are the
/// heuristic's and it has run often enough. A kernel of a key already
/// searched gets its winner. The compile queue runs jobs one at a time, so
/// a key is searched once; with KILN_JIT_SYNC=1 jobs run on the threads
/// that queue them, and two threads may search it at once (the first
/// winner stored is the one kernels get).
void note_online_run(const FusedGroup& group, KernelEntry& kernel);

/// Compiles `kernel`'s spec with `knobs` at O3 and publishes that code.
void publish_tuned(KernelEntry& kernel, const KernelKnobs& knobs);

/// Makes `tuned` (code kept alive by `code`, and the launch knobs it runs
/// with) what the kernel's runs take from now on: a hot swap, counted and
/// logged (`start_ns`: when making it began). A kernel is swapped once;
/// later calls do nothing.
void publish_tuned(KernelEntry& kernel, KernelEntry::TunedCode tuned, std::shared_ptr<const KernelCode> code,
                   std::int64_t start_ns);

}  // namespace kiln::jit

// Communication counters: what kiln::distributed's collectives moved and how
// long they took, and how much of DistributedDataParallel's gradient
// all-reduce backward had to wait for. Bumped by kiln_distributed (the
// communication thread and the gradient reducer); libkiln itself never
// communicates, so they stay zero in a single-process program. Folded into
// kiln::Stats by snapshot(), zeroed by reset().
#pragma once

#include <cstdint>

#include <kiln/profiler/stats.h>

namespace kiln::profiler {

/// One all-reduce of `bytes` (this rank's tensor), from its start on the
/// communication thread to its completion.
void record_allreduce(std::uint64_t bytes, std::int64_t nanoseconds) noexcept;
/// One broadcast of `bytes`.
void record_broadcast(std::uint64_t bytes) noexcept;
/// The all-reduce time of one of DistributedDataParallel's gradient buckets.
void record_gradient_allreduce(std::int64_t nanoseconds) noexcept;
/// Time the end of backward blocked on gradient all-reduces.
void record_backward_comm_wait(std::int64_t nanoseconds) noexcept;

void fill_comm_stats(Stats& s) noexcept;
void reset_comm() noexcept;

}  // namespace kiln::profiler

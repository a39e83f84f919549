#include "run_tier.h"

#include <algorithm>

#include "jit/tier1/segment_jit.h"
#include "profiler/counters.h"

namespace soak {
namespace {

kiln::JitStats jit_counters() {
  kiln::JitStats s;
  kiln::profiler::fill_jit_stats(s);
  return s;
}

// The kernels are written once before `planned` is set, on the thread that
// ran the segment: this one.
bool has_demoted_kernel(const kiln::jit::SegmentJit* record) {
  if (!record || !record->planned.load(std::memory_order_acquire)) return false;
  return std::any_of(record->kernels.begin(), record->kernels.end(), [](const auto& k) {
    return k && k->state.load() == kiln::jit::KernelState::Demoted;
  });
}

}  // namespace

RunTier run_and_classify(const std::function<void()>& run) {
  const kiln::JitStats before = jit_counters();
  run();
  const kiln::JitStats after = jit_counters();
  if (after.group_runs_compiled > before.group_runs_compiled &&
      after.group_runs_interpreted == before.group_runs_interpreted)
    return RunTier::Compiled;
  return has_demoted_kernel(kiln::jit::last_segment_jit().get()) ? RunTier::Demoted : RunTier::Interpreted;
}

}  // namespace soak

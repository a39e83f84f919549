// The JIT's view of one segment key: how often it ran and for how long on
// tier 0, and -- once it is hot and worth it -- its fusion plan with a
// kernel entry per fused group. The engine asks `jit_for` on every run and
// executes groups through `run_fused` when their code is ready.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "jit/fusion/partition.h"
#include "jit/segment_plan.h"
#include "jit/tier1/kernel_cache.h"
#include "jit/tier1/shape_family.h"
#include "trace/segment.h"

namespace kiln::jit {

struct SegmentJit {
  std::atomic<std::int64_t> runs{0};
  std::atomic<std::int64_t> t0_ns{0};  // wall time of its runs with no compiled group
  std::atomic<bool> planned{false};
  // Found on its first run that was not hot alone; `family_owner` (set
  // under `mu` before `family` is published) keeps it alive.
  std::atomic<ShapeFamily*> family{nullptr};
  std::shared_ptr<ShapeFamily> family_owner;
  // The key's SegmentPlan, made on its first run: it depends on the key
  // alone, and making it again for every run of a small recurring segment
  // cost a tenth of that run. Set once, never freed while the record lives.
  std::atomic<const SegmentPlan*> plan{nullptr};
  ~SegmentJit() { delete plan.load(); }

  // Written once under `mu` before `planned` is set; read-only afterwards.
  std::mutex mu;
  std::vector<FusedGroup> groups;
  std::vector<std::shared_ptr<KernelEntry>> kernels;  // per group
  std::vector<std::int32_t> group_of;                 // per node: its group, or -1
  std::size_t value_count = 0;                        // the shape of the segment it was made for
  std::size_t needed_nodes = 0;                       // of the segment it was made for
  bool dynamic = false;                               // kernels take their sizes at run time
};

/// Counts a run of `segment` and returns its JIT record, planning it (and
/// queueing its kernels) when the key becomes hot and compiling pays back:
/// `planned` tells whether it has groups. Null when the JIT is off, and on
/// a key's first run: a key that never recurs costs no record, no plan
/// kept and no partition. The caller holds the record for the run (the
/// table may drop it meanwhile). `plan` is set to the segment's
/// SegmentPlan: the key's, or `scratch` filled by plan_segment.
std::shared_ptr<SegmentJit> jit_for(const trace::Segment& segment, const SegmentPlan*& plan, SegmentPlan& scratch);

/// The JIT record of the last segment run on this thread (null: none, the
/// key's first run, or the JIT was off): lets tests see how a program was fused.
std::shared_ptr<const SegmentJit> last_segment_jit();

/// Runs `group` with its compiled code if that is ready and the plan's view
/// assumptions hold for this run; false means "run its nodes on tier 0".
/// `now` is the run's start (profiler::now_ns's clock). `in_order`: every
/// node before the group ran (not so for a group run ahead of a matmul), so
/// an output may take the memory of an input that dies in the group.
bool run_fused(trace::Segment& segment, const FusedGroup& group, KernelEntry& kernel, std::int64_t now,
               bool in_order);

/// After a group ran on tier 0 at `now`: its heat for the compile queue,
/// its time per element when `comparable` (the group's time alone: not a
/// GEMM's), and its compile queued again if it was dropped cold.
void note_interpreted(KernelEntry& kernel, std::int64_t nanoseconds, std::int64_t elements, bool comparable,
                      std::int64_t now);

/// Adds a run's wall time to the key's tier-0 total (break-even estimate).
void note_segment_time(SegmentJit& jit, std::int64_t nanoseconds, bool any_compiled);

}  // namespace kiln::jit

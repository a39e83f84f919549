#include "jit/engine.h"

#include <chrono>

#include "jit/bound_node.h"
#include "jit/kernels/kernel.h"
#include "jit/segment_plan.h"
#include "jit/threads.h"
#include "jit/tier1/segment_jit.h"
#include "profiler/counters.h"

namespace kiln::jit {
namespace {

// The memory of a segment's intermediates: released one by one after their
// last use, and all at once if the run ends early (an exception).
class Intermediates {
 public:
  explicit Intermediates(trace::Segment& segment) : segment_(segment) {}
  Intermediates(const Intermediates&) = delete;
  Intermediates& operator=(const Intermediates&) = delete;
  ~Intermediates() {
    for (trace::Value& v : segment_.values)
      if (is_intermediate(v)) v.storage->release_memory();
  }

  void release(std::uint32_t value) {
    trace::Storage& storage = *segment_.values[value].storage;
    if (storage.is_allocated()) bytes_ += storage.nbytes();
    storage.release_memory();
  }
  std::uint64_t bytes() const { return bytes_; }

 private:
  trace::Segment& segment_;
  std::uint64_t bytes_ = 0;
};

}  // namespace

Engine::Engine() { num_threads(); }  // applies KILN_NUM_THREADS before the first kernel

namespace {

std::int64_t since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void Engine::run(trace::Segment& segment) {
  const auto start = std::chrono::steady_clock::now();
  const SegmentPlan plan = plan_segment(segment);
  SegmentJit* jit = jit_for(segment, plan.needed);
  const bool fused = jit && jit->planned.load(std::memory_order_acquire);
  Intermediates intermediates(segment);
  auto release = plan.releases.begin();
  bool any_compiled = false;
  std::int32_t skip_group = -1;  // the group whose nodes its compiled kernel ran
  std::int32_t timed_group = -1;  // the group being run op by op, timed for feedback
  std::chrono::steady_clock::time_point group_start;
  for (std::uint32_t i = 0; i < segment.nodes.size(); ++i) {
    if (!plan.needed[i]) continue;
    const std::int32_t g = fused ? jit->group_of[i] : -1;
    if (g >= 0 && i == jit->groups[g].nodes.front()) {
      if (run_fused(segment, jit->groups[g], *jit->kernels[g])) {
        skip_group = g;
        any_compiled = true;
      } else {
        timed_group = g;
        group_start = std::chrono::steady_clock::now();
      }
    }
    if (g < 0 || g != skip_group) {
      const trace::Node& node = segment.nodes[i];
      BoundNode bound(segment, node);
      kernels::kernel_for(node.op)(bound.call());
      bound.finish();
      if (g >= 0 && g == timed_group && i == jit->groups[g].nodes.back())
        note_interpreted(*jit->kernels[g], since(group_start), jit->groups[g].spec.numel());
    }
    for (; release != plan.releases.end() && release->node == i; ++release) intermediates.release(release->value);
  }
  const std::int64_t elapsed = since(start);
  if (jit) note_segment_time(*jit, elapsed, any_compiled);
  profiler::record_segment_run(segment.key, segment.reason, plan.ops_run, plan.ops_eliminated,
                               static_cast<std::uint64_t>(elapsed), intermediates.bytes());
}

trace::Executor& engine() {
  static Engine instance;
  return instance;
}

}  // namespace kiln::jit

#include "jit/engine.h"

#include <chrono>

#include "jit/bound_node.h"
#include "jit/kernels/kernel.h"
#include "jit/segment_plan.h"
#include "jit/threads.h"
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

void Engine::run(trace::Segment& segment) {
  const auto start = std::chrono::steady_clock::now();
  const SegmentPlan plan = plan_segment(segment);
  Intermediates intermediates(segment);
  auto release = plan.releases.begin();
  for (std::uint32_t i = 0; i < segment.nodes.size(); ++i) {
    if (!plan.needed[i]) continue;
    const trace::Node& node = segment.nodes[i];
    {
      BoundNode bound(segment, node);
      kernels::kernel_for(node.op)(bound.call());
      bound.finish();
    }
    for (; release != plan.releases.end() && release->node == i; ++release) intermediates.release(release->value);
  }
  const auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
  profiler::record_segment_run(segment.key, segment.reason, plan.ops_run, plan.ops_eliminated,
                               static_cast<std::uint64_t>(elapsed.count()), intermediates.bytes());
}

trace::Executor& engine() {
  static Engine instance;
  return instance;
}

}  // namespace kiln::jit

#include "jit/engine.h"

#include <chrono>
#include <optional>

#include "jit/bound_node.h"
#include "jit/kernels/kernel.h"
#include "jit/segment_plan.h"
#include "jit/threads.h"
#include "jit/tier1/segment_jit.h"
#include "memory/residency.h"
#include "profiler/counters.h"
#include "profiler/enabled.h"
#include "trace/executor.h"
#include "trace/recipe.h"

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
  // `value`'s memory went to the output of the node it died at.
  void handed_over(std::uint32_t value) { bytes_ += segment_.values[value].storage->nbytes(); }
  std::uint64_t bytes() const { return bytes_; }

 private:
  trace::Segment& segment_;
  std::uint64_t bytes_ = 0;
};

// The values a segment could not compute, and the first error.
class Taint {
 public:
  // The marks are made at the first failure: a run that fails nothing
  // allocates nothing here.
  explicit Taint(const trace::Segment& segment) : values_(segment.values.size()) {}

  bool any() const { return error_ != nullptr; }
  void fail(std::exception_ptr e) {
    if (error_) return;
    error_ = std::move(e);
    tainted_.assign(values_, false);
  }
  void mark(std::uint32_t value) { tainted_[value] = true; }
  bool reads_tainted(const trace::Node& node) const {
    if (!error_) return false;
    for (int k = 0; k < node.arity; ++k)
      if (!node.in[k].is_scalar() && tainted_[node.in[k].value]) return true;
    return tainted_[node.out.value];  // a partial write to a value that is already lost
  }
  void throw_if_failed() const {
    if (!error_) return;
    trace::SegmentFailure failure{error_, {}};
    for (std::uint32_t v = 0; v < tainted_.size(); ++v)
      if (tainted_[v]) failure.failed_values.push_back(v);
    throw failure;
  }

 private:
  std::size_t values_;
  std::vector<bool> tainted_;  // by value, once something failed
  std::exception_ptr error_;
};

}  // namespace

Engine::Engine() { num_threads(); }  // applies KILN_NUM_THREADS before the first kernel

namespace {

// Before `node` writes its output: values evicted under a budget that were
// made from what the output holds are dealt with first (trace/recipe.h).
void before_write(const trace::Segment& segment, const trace::Node& node) {
  trace::Storage& out = *segment.values[node.out.value].storage;
  if (out.has_dependents()) out.before_overwrite();
}

// After node `index` wrote its output: its recipe kept (under a budget),
// or a recipe it overwrote dropped.
void note_written(const trace::Segment& segment, std::optional<trace::RecipeRules>& recipes,
                  std::uint32_t index, std::uint32_t ran_until, std::int64_t ns) {
  if (recipes) trace::after_write(segment, *recipes, index, ran_until, ns);
  else trace::forget_overwritten(segment, segment.nodes[index]);
}

std::int64_t since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void Engine::run(trace::Segment& segment) {
  const auto start = std::chrono::steady_clock::now();
  const std::int64_t start_ns = std::chrono::nanoseconds(start.time_since_epoch()).count();
  SegmentPlan scratch;
  const SegmentPlan* segment_plan = nullptr;
  const std::shared_ptr<SegmentJit> jit = jit_for(segment, segment_plan, scratch);
  const SegmentPlan& plan = *segment_plan;
  const bool fused = jit && jit->planned.load(std::memory_order_acquire);
  // Under a budget each value written whole keeps its recipe, so that it
  // can be evicted and recomputed (trace/recipe.h).
  std::optional<trace::RecipeRules> recipes;
  if (memory::residency_enabled()) recipes.emplace(segment);
  // Until a budget was ever set nothing has a recipe or can be evicted: no
  // pins, no recipes to drop or redirect (one check per run, not per node).
  const bool residency = memory::residency_ever_enabled();
  Intermediates intermediates(segment);
  auto release = plan.releases.begin();
  bool any_compiled = false;
  std::int32_t skip_group = -1;  // the group whose nodes its compiled kernel ran
  std::int32_t timed_group = -1;  // the group being run op by op, timed for feedback
  std::chrono::steady_clock::time_point group_start;
  // Nodes a group's run_first ran ahead of their place (allocated on first use).
  std::vector<bool> ran_early;
  // A failing node taints its output and whatever depends on it; the rest
  // of the segment still runs, so that unrelated tensors stay readable.
  Taint taint(segment);

  // Group g's compiled code over all its nodes; false: run them op by op.
  // `in_order` as run_node's.
  auto run_group = [&](std::int32_t g, bool in_order) {
    const FusedGroup& group = jit->groups[g];
    if (residency)
      for (std::uint32_t j : group.nodes) before_write(segment, segment.nodes[j]);
    const std::int64_t group_ns = recipes ? profiler::now_ns() : 0;
    bool compiled = false;
    try {
      compiled = run_fused(segment, group, *jit->kernels[g], start_ns, in_order);
    } catch (...) {
      // An output could not be allocated: run op by op, where a node that
      // fails says why and taints only what depends on it.
    }
    if (compiled) {
      any_compiled = true;
      if (residency) {
        const std::int64_t per_node =
            recipes ? (profiler::now_ns() - group_ns) / static_cast<std::int64_t>(group.nodes.size()) : 0;
        for (std::uint32_t j : group.nodes) note_written(segment, recipes, j, group.nodes.back(), per_node);
      }
    }
    return compiled;
  };
  // Node i on tier 0. `in_order`: every node before it ran, so the inputs
  // that die at it are read by nothing else and its output may take one's
  // memory; not so for a node run ahead of its place.
  auto run_node = [&](std::uint32_t i, bool in_order) {
    const trace::Node& node = segment.nodes[i];
    if (taint.reads_tainted(node)) {
      taint.mark(node.out.value);
      return;
    }
    try {
      if (residency) before_write(segment, node);
      const std::int64_t node_ns = recipes ? profiler::now_ns() : 0;
      {
        BoundNode bound(segment, node, residency, in_order ? plan.dying[i] : 0);
        if (const int k = bound.reused_input(); k >= 0) intermediates.handed_over(node.in[k].value);
        kernels::kernel_for(node.op)(bound.call());
        bound.finish();
      }
      if (residency) note_written(segment, recipes, i, i, recipes ? profiler::now_ns() - node_ns : 0);
    } catch (...) {
      taint.fail(std::current_exception());
      taint.mark(node.out.value);
    }
  };
  // A group's run_first, ahead of its matmul: their groups whole (compiled,
  // or op by op), the other nodes on tier 0.
  auto run_ahead = [&](const std::vector<std::uint32_t>& nodes) {
    if (ran_early.empty()) ran_early.assign(segment.nodes.size(), false);
    std::int32_t timed = -1;  // the group being run op by op, as in the main loop
    std::chrono::steady_clock::time_point ahead_start;
    for (std::uint32_t j : nodes) {
      if (ran_early[j]) continue;
      const std::int32_t h = jit->group_of[j];
      if (h >= 0 && j == jit->groups[h].nodes.front() && !taint.any()) {
        if (run_group(h, false)) {
          for (std::uint32_t k : jit->groups[h].nodes) ran_early[k] = true;
          continue;
        }
        timed = h;
        ahead_start = std::chrono::steady_clock::now();
      }
      run_node(j, false);
      ran_early[j] = true;
      if (h >= 0 && h == timed && j == jit->groups[h].nodes.back())
        note_interpreted(*jit->kernels[h], since(ahead_start), jit->groups[h].spec.numel(), true, start_ns);
    }
  };

  for (std::uint32_t i = 0; i < segment.nodes.size(); ++i) {
    if (!plan.needed[i]) continue;
    const std::int32_t g = fused ? jit->group_of[i] : -1;
    const bool ran_ahead = !ran_early.empty() && ran_early[i];  // by a later group's matmul
    if (!ran_ahead && g >= 0 && i == jit->groups[g].nodes.front() && !taint.any()) {
      if (!jit->groups[g].run_first.empty()) run_ahead(jit->groups[g].run_first);
      if (!taint.any() && run_group(g, true)) {
        skip_group = g;
      } else {
        timed_group = g;
        group_start = std::chrono::steady_clock::now();
      }
    }
    if (!ran_ahead && (g < 0 || g != skip_group)) {
      run_node(i, true);
      if (g >= 0 && g == timed_group && i == jit->groups[g].nodes.back())
        note_interpreted(*jit->kernels[g], since(group_start), jit->groups[g].spec.numel(), !jit->groups[g].matmul,
                         start_ns);
    }
    for (; release != plan.releases.end() && release->node == i; ++release) intermediates.release(release->value);
  }
  const std::int64_t elapsed = since(start);
  if (jit) note_segment_time(*jit, elapsed, any_compiled);
  profiler::record_segment_run({segment.key, segment.reason, segment.site, plan.ops_run, plan.ops_eliminated,
                                start_ns, static_cast<std::uint64_t>(elapsed),
                                intermediates.bytes(), any_compiled});
  taint.throw_if_failed();
}

trace::Executor& engine() {
  static Engine instance;
  return instance;
}

}  // namespace kiln::jit

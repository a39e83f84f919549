// Fused kernels with tuned knobs in a program: the kernels `kiln tune`'s
// targets describe (jit/tuning/kernel_targets.h) are the ones x.sum(),
// x.softmax(1) and x.exp() compile to; with a database entry for their key
// the program's kernel takes the entry's knobs and still agrees with tier 0
// and a plain reference; with KILN_AUTOTUNE=0 it keeps the heuristic's;
// with KILN_AUTOTUNE=online a hot one is tuned and its winner swapped in.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "jit/threads.h"
#include "jit/tier1/online_tuning.h"
#include "profiler/enabled.h"
#include "jit/tuning/kernel_targets.h"
#include "jit/tuning/kernel_tuning.h"
#include "jit/tuning/tuning_store.h"
#include "tests/common/tuning_helpers.h"
#include "tests/common/reference.h"
#include "tests/jit_tier1/reduction_cases.h"

namespace {

namespace tuning = kiln::jit::tuning;
using kiln::Tensor;

using TunedKernels = tuning_test::PrivateTuningDb;

struct Case {
  const char* name;  // the kiln tune target
  std::vector<std::int64_t> shape;
  std::function<Tensor(const Tensor&)> op;
  kref::Ref want;  // of the input below
};

// Positive values in [0.5, 1.5), rounded to float.
kref::Ref input(const kref::Shape& shape) {
  return kref::build(shape, [&](const kref::Shape& i) {
    const std::int64_t flat = kref::ravel(i, shape);
    return double(0.5f + float(flat % 89) / 89);
  });
}

// A sum big enough for the partial form (a small one stays on tier 0).
std::vector<Case> cases() {
  const kref::Ref flat = input({200003}), rows = input({300, 200}), few = input({5000});
  double sum = 0;
  for (double v : flat.v) sum += v;
  return {{"sum", {200003}, [](const Tensor& x) { return x.sum(); }, kref::Ref({}, {sum})},
          {"softmax", {300, 200}, [](const Tensor& x) { return x.softmax(1); }, kref::softmax(rows, 1)},
          {"exp", {5000}, [](const Tensor& x) { return x.exp(); }, kref::map(few, [](double v) { return std::exp(v); })}};
}

// Runs the case's program on both tiers (one fused kernel, agreeing) and
// returns the spec its kernel was planned with.
kiln::jit::KernelSpec run_fused(const Case& c, const Tensor& x) {
  EXPECT_TRUE(reduction_cases::one_kernel([&] { return std::vector<Tensor>{c.op(x)}; })) << c.name;
  const std::shared_ptr<const kiln::jit::SegmentJit> s = kiln::jit::last_segment_jit();
  if (!s || s->groups.empty()) {
    ADD_FAILURE() << c.name << ": no fused kernel";
    return {};
  }
  return s->groups[0].spec;
}

// Stores an entry for the target's key with every knob at its last value
// (none of them the heuristic's); returns its config.
kiln::autotune::Config store_entry(const kiln::jit::KernelSpec& target) {
  const kiln::autotune::ConfigSpace space = tuning::kernel_space(target);
  kiln::autotune::Config config;
  for (const kiln::autotune::Knob& knob : space.knobs()) config[knob.name] = knob.values.back();
  tuning::tuning_db()->store(tuning::kernel_key(target), {.config = config, .seconds = 1e-3});
  tuning::bump_tuning_generation();
  return config;
}

TEST_F(TunedKernels, TargetsAreTheKernelsProgramsCompile) {
  for (const Case& c : cases()) {
    const kiln::jit::KernelSpec spec = run_fused(c, kref::make(input(c.shape), kiln::kFloat32));
    EXPECT_EQ(spec.knobs, kiln::jit::KernelKnobs{}) << c.name << ": no entry, the heuristic";
    EXPECT_EQ(spec.key(), tuning::fused_kernel_spec(c.name, c.shape).key())
        << c.name << ": the program compiled\n" << spec.to_string() << "the target is\n"
        << tuning::fused_kernel_spec(c.name, c.shape).to_string();
  }
}

TEST_F(TunedKernels, AStoredEntrySetsTheKnobsAndResultsStayTheReference) {
  for (const Case& c : cases()) {
    const kiln::autotune::Config config = store_entry(tuning::fused_kernel_spec(c.name, c.shape));

    const Tensor x = kref::make(input(c.shape), kiln::kFloat32);
    const kiln::jit::KernelSpec spec = run_fused(c, x);
    EXPECT_EQ(spec.knobs, tuning::knobs_from_config(config)) << c.name << "\n" << spec.to_string();
    tiers::Tier1Scope scope;
    EXPECT_TRUE(reduction_cases::matches(c.op(x).to(kiln::kFloat64), c.want, 1e-5)) << c.name;
  }
}

// The row of `key` in the profiler's tunables, if any.
std::optional<kiln::TunableStats> tunable(const std::string& key) {
  for (const kiln::TunableStats& t : kiln::profiler::snapshot().tunables)
    if (t.key == key) return t;
  return std::nullopt;
}

// What `kiln tune --from` reads: a compiled kernel over 2^18 elements or
// more is counted under its key with the kiln tune target tuning that key;
// a smaller one is not, and one kiln tune has no kernel for has no target.
TEST_F(TunedKernels, LargeKernelsAreCountedAsTunableRunsWithTheirTarget) {
  const std::vector<Case> large = {
      {"softmax", {512, 1024}, [](const Tensor& x) { return x.softmax(1); }, {}},
      {"sum", {300000}, [](const Tensor& x) { return x.sum(); }, {}},
      {"exp", {1 << 18}, [](const Tensor& x) { return (x * 2).exp(); }, {}}};  // any elementwise kernel is "exp"
  const char* targets[] = {"softmax 512x1024", "sum 300000", "exp 262144"};
  for (std::size_t i = 0; i < large.size(); ++i) {
    const Case& c = large[i];
    kiln::profiler::reset();
    const kiln::jit::KernelSpec spec = run_fused(c, kref::make(input(c.shape), kiln::kFloat32));
    const std::optional<kiln::TunableStats> row = tunable(tuning::kernel_key(spec));
    ASSERT_TRUE(row) << c.name;
    EXPECT_EQ(row->target, targets[i]);
    EXPECT_GE(row->calls, 1u);
    EXPECT_GT(row->total_ms, 0);
    EXPECT_EQ(row->threads, static_cast<std::uint32_t>(kiln::jit::num_threads()));
    EXPECT_STREQ(row->config, "heuristic");
  }

  // Knobs are read when a segment is planned: a shape not run before.
  const Case softmax = {"softmax", {640, 1024}, large[0].op, {}};
  store_entry(tuning::fused_kernel_spec(softmax.name, softmax.shape));
  kiln::profiler::reset();
  const kiln::jit::KernelSpec tuned = run_fused(softmax, kref::make(input(softmax.shape), kiln::kFloat32));
  ASSERT_TRUE(tunable(tuning::kernel_key(tuned)));
  EXPECT_STREQ(tunable(tuning::kernel_key(tuned))->config, "database");

  kiln::profiler::reset();
  run_fused(cases()[2], kref::make(input(cases()[2].shape), kiln::kFloat32));  // exp of 5000
  EXPECT_TRUE(kiln::profiler::snapshot().tunables.empty());

  const kiln::jit::KernelSpec f64 = run_fused(large[2], kref::make(input(large[2].shape), kiln::kFloat64));
  ASSERT_TRUE(tunable(tuning::kernel_key(f64)));
  EXPECT_EQ(tunable(tuning::kernel_key(f64))->target, "") << "kiln tune's kernels are float32";
}

// KILN_AUTOTUNE=online: a hot kernel whose key has no entry is searched
// once (here at once: this suite compiles synchronously), its winner is
// stored, logged and reported as "online", and every result, before and
// after, stays the reference.
TEST_F(TunedKernels, OnlineTuningSearchesAHotKernelOnceAndReportsItsWinner) {
  const Case c = {"softmax", {512, 1024}, [](const Tensor& x) { return x.softmax(1); },
                  kref::softmax(input({512, 1024}), 1)};
  const kiln::jit::KernelSpec target = tuning::fused_kernel_spec(c.name, c.shape);
  const std::string key = tuning::kernel_key(target);
  ASSERT_FALSE(tuning::tuned_knobs(target));
  const double budget = tuning::online_budget_seconds();
  tuning::set_online_budget_seconds(0.2);
  tuning::set_autotune_mode(kiln::AutotuneMode::Online);
  kiln::profiler::reset();
  const std::uint64_t tuned_before = kiln::stats().jit.tunes_done;

  const Tensor x = kref::make(input(c.shape), kiln::kFloat32);
  {
    tiers::Tier1Scope scope;
    for (int run = 0; run < 48; ++run)  // read on the host: a conversion fused in would compute something else
      ASSERT_TRUE(reduction_cases::matches(kref::make(kref::of(c.op(x)), kiln::kFloat64), c.want, 1e-5))
          << "run " << run;
  }
  tuning::set_online_budget_seconds(budget);

  EXPECT_EQ(kiln::stats().jit.tunes_done, tuned_before + 1) << "the key is searched once";
  EXPECT_TRUE(tuning::tuned_knobs(target)) << "the winner is stored";
  bool logged = false;
  for (const kiln::EventStats& e : kiln::stats().recent_events)
    logged |= std::string(e.kind) == "tuned" && e.detail.find(key) == 0;
  EXPECT_TRUE(logged) << "no 'tuned' event naming " << key;
  ASSERT_TRUE(tunable(key));
  EXPECT_STREQ(tunable(key)->config, "online");
}

// The swap: once online tuning publishes a kernel's tuned code, its runs
// take that code (a wrapper here, counting its calls) and stay the
// reference; a kernel is swapped once.
TEST_F(TunedKernels, TheCodeOnlineTuningPublishesIsWhatTheKernelRuns) {
  const Case c = cases()[1];
  const Tensor x = kref::make(input(c.shape), kiln::kFloat32);
  run_fused(c, x);
  const std::shared_ptr<const kiln::jit::SegmentJit> s = kiln::jit::last_segment_jit();
  ASSERT_TRUE(s && s->kernels.size() == 1);
  kiln::jit::KernelEntry& kernel = *s->kernels[0];
  ASSERT_TRUE(kernel.fn.load());
  ASSERT_FALSE(kernel.tuned.load());

  static kiln::jit::CompiledFn heuristic;
  static std::atomic<int> calls;
  heuristic = kernel.fn.load();
  calls = 0;
  const kiln::jit::CompiledFn counting = [](std::int64_t b, std::int64_t e, void* const* p, const std::int64_t* sc) {
    ++calls;
    heuristic(b, e, p, sc);
  };
  const std::uint64_t swaps_before = kiln::stats().jit.hot_swaps;
  // One task for all 300 rows, where the heuristic's grain (32768 elements,
  // 163 rows) makes two.
  const kiln::jit::KernelKnobs knobs{.grain = std::int64_t{1} << 20};
  kiln::jit::publish_tuned(kernel, {counting, knobs}, nullptr, kiln::profiler::now_ns());
  EXPECT_EQ(kiln::stats().jit.hot_swaps, swaps_before + 1);
  ASSERT_TRUE(kernel.tuned.load());
  EXPECT_EQ(kernel.tuned.load()->knobs, knobs);
  kiln::jit::publish_tuned(kernel, {heuristic, {}}, nullptr, kiln::profiler::now_ns());
  EXPECT_EQ(kernel.tuned.load()->fn, counting) << "swapped once";

  tiers::Tier1Scope scope;
  const Tensor y = c.op(x);
  kiln::sync();  // the softmax alone: the segment of the kernel above
  EXPECT_EQ(calls.load(), 1) << "the tuned code runs, in one task: its grain";
  EXPECT_TRUE(reduction_cases::matches(y.to(kiln::kFloat64), c.want, 1e-5));
}

TEST_F(TunedKernels, AutotuneOffKeepsTheHeuristic) {
  const Case c = cases()[1];
  const kiln::jit::KernelSpec target = tuning::fused_kernel_spec(c.name, c.shape);
  store_entry(target);
  ASSERT_TRUE(tuning::tuned_knobs(target));
  tuning::set_autotune_mode(kiln::AutotuneMode::Off);
  EXPECT_EQ(run_fused(c, kref::make(input(c.shape), kiln::kFloat32)).knobs, kiln::jit::KernelKnobs{});
}

}  // namespace

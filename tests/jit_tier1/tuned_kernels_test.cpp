// Fused kernels with tuned knobs in a program: the kernels `kiln tune`'s
// targets describe (jit/tuning/kernel_targets.h) are the ones x.sum(),
// x.softmax(1) and x.exp() compile to; with a database entry for their key
// the program's kernel takes the entry's knobs and still agrees with tier 0
// and a plain reference; with KILN_AUTOTUNE=0 it keeps the heuristic's.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <kiln/kiln.h>

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

TEST_F(TunedKernels, AutotuneOffKeepsTheHeuristic) {
  const Case c = cases()[1];
  const kiln::jit::KernelSpec target = tuning::fused_kernel_spec(c.name, c.shape);
  store_entry(target);
  ASSERT_TRUE(tuning::tuned_knobs(target));
  tuning::set_autotune_mode(kiln::AutotuneMode::Off);
  EXPECT_EQ(run_fused(c, kref::make(input(c.shape), kiln::kFloat32)).knobs, kiln::jit::KernelKnobs{});
}

}  // namespace

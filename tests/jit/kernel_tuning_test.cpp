// The fused-kernel family of the autotuner (jit/tuning/kernel_tuning.h) on a
// private database: keys by form and shape bucket; every knob value gives
// the heuristic's results within the rounding of a reordered sum, and the
// heuristic's results are the reference's; the lookup uses a stored entry
// (not an entry outside the space, nor any with KILN_AUTOTUNE=0); a tuning
// run stores its winner; kiln::tune's fused targets reject bad text with
// ValueError naming it.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <kiln/error.h>
#include <kiln/tune.h>

#include "jit/orc/session.h"
#include "jit/threads.h"
#include "jit/tier1/launch.h"
#include "jit/tuning/kernel_targets.h"
#include "jit/tuning/kernel_tuning.h"
#include "jit/tuning/tuning_store.h"
#include "tests/common/tuning_helpers.h"

namespace {

using namespace kiln::jit;
using namespace kiln::jit::tuning;

using KernelTuning = tuning_test::PrivateTuningDb;

std::string threads() { return std::string("t").append(std::to_string(num_threads())); }

KernelSpec target(const char* name, std::vector<std::int64_t> shape) { return fused_kernel_spec(name, shape); }

TEST_F(KernelTuning, KeysNameFormTypeThreadsAndBucketAndARowKernelsOps) {
  EXPECT_EQ(kernel_key(target("sum", {16777216})), "sum/f32/" + threads() + "/16777216");
  EXPECT_EQ(kernel_key(target("softmax", {4096, 1024})),
            "row_reduce/f32/amax.sub.exp.sum.reciprocal.mul/" + threads() + "/4096x1024");
  EXPECT_EQ(kernel_key(target("exp", {1000})), "elementwise/f32/" + threads() + "/1024");
  EXPECT_EQ(kernel_key(target("softmax", {4000, 1000})), kernel_key(target("softmax", {4096, 1024})));
  KernelSpec ints = target("sum", {100});
  ints.inputs[0].dtype = kiln::kInt32;
  EXPECT_EQ(kernel_key(ints), "") << "integer kernels are not tuned";
  KernelSpec amax = target("sum", {100});
  amax.instrs[0].op = kiln::trace::OpId::Amax;
  EXPECT_EQ(kernel_key(amax), "") << "a partial kernel other than a sum";
}

// Runs `spec` (compiled at O1 with its knobs) on inputs 0.5 + (i % 97) / 97,
// returning its output's values.
std::vector<double> run(const KernelSpec& spec) {
  const CompiledKernel kernel = OrcSession::instance().compile(spec, {1});
  std::vector<float> in(static_cast<std::size_t>(spec.numel())), out(spec.is_partial() ? 1 : in.size(), -1);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = 0.5f + float(i % 97) / 97;
  void* ptrs[] = {in.data(), out.data()};
  launch(spec, kernel.fn, ptrs, nullptr);
  return {out.begin(), out.end()};
}

// softmax of every row of `x` (rows x cols), in double.
std::vector<double> softmax_reference(std::int64_t rows, std::int64_t cols) {
  std::vector<double> y(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r) {
    double max = -INFINITY, sum = 0;
    for (std::int64_t c = 0; c < cols; ++c) max = std::max(max, 0.5 + double(float((r * cols + c) % 97) / 97));
    for (std::int64_t c = 0; c < cols; ++c) sum += std::exp(0.5 + double(float((r * cols + c) % 97) / 97) - max);
    for (std::int64_t c = 0; c < cols; ++c)
      y[r * cols + c] = std::exp(0.5 + double(float((r * cols + c) % 97) / 97) - max) / sum;
  }
  return y;
}

::testing::AssertionResult within(const std::vector<double>& got, const std::vector<double>& want, double relative) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << got.size() << " values, want " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= relative * std::fabs(want[i])))
      return ::testing::AssertionFailure() << "value " << i << ": " << got[i] << ", want " << want[i];
  return ::testing::AssertionSuccess();
}

TEST_F(KernelTuning, EveryKnobValueGivesTheReferenceWithinRounding) {
  struct Case {
    KernelSpec spec;
    std::vector<double> reference;
  };
  const std::int64_t n = 300007;  // chunks and blocks with a remainder
  double sum = 0;
  for (std::int64_t i = 0; i < n; ++i) sum += 0.5 + double(float(i % 97) / 97);
  std::vector<double> exp_reference(1000);
  for (std::size_t i = 0; i < exp_reference.size(); ++i) exp_reference[i] = std::exp(double(0.5f + float(i % 97) / 97));
  const std::vector<Case> cases = {{target("sum", {n}), {double(float(sum))}},
                                   {target("softmax", {40, 300}), softmax_reference(40, 300)},
                                   {target("exp", {1000}), exp_reference}};
  for (const Case& c : cases) {
    const std::vector<double> heuristic = run(c.spec);
    ASSERT_TRUE(within(heuristic, c.reference, 2e-6)) << c.spec.to_string();
    // Each knob through each of its values, the others at the heuristic's.
    const kiln::autotune::ConfigSpace space = kernel_space(c.spec);
    for (const kiln::autotune::Knob& knob : space.knobs())
      for (std::int64_t value : knob.values) {
        KernelSpec tuned = c.spec;
        tuned.knobs = knobs_from_config({{knob.name, value}});
        EXPECT_TRUE(within(run(tuned), heuristic, 1e-5)) << knob.name << "=" << value << "\n" << c.spec.to_string();
      }
  }
}

TEST_F(KernelTuning, TheLookupUsesAStoredEntryInsideTheSpace) {
  const KernelSpec spec = target("softmax", {64, 256});
  EXPECT_FALSE(tuned_knobs(spec));
  kiln::autotune::Config config;
  const kiln::autotune::ConfigSpace space = kernel_space(spec);
  for (const kiln::autotune::Knob& knob : space.knobs()) config[knob.name] = knob.values.back();
  tuning_db()->store(kernel_key(spec), {.config = config, .seconds = 1e-3, .default_seconds = 2e-3});
  bump_tuning_generation();
  const std::optional<KernelKnobs> knobs = tuned_knobs(spec);
  ASSERT_TRUE(knobs);
  EXPECT_EQ(*knobs, knobs_from_config(config));
  EXPECT_EQ(knobs->vector_width, 16);
  EXPECT_EQ(knobs->sum_block, 4096);
  KernelSpec applied = spec;
  apply_tuned_knobs(applied);
  EXPECT_EQ(applied.knobs, *knobs);
  EXPECT_NE(applied.key(), spec.key()) << "codegen knobs enter the key";

  kiln::jit::tuning::set_autotune_mode(kiln::AutotuneMode::Off);
  EXPECT_FALSE(tuned_knobs(spec)) << "KILN_AUTOTUNE=0 ignores the database";
  kiln::jit::tuning::set_autotune_mode(kiln::AutotuneMode::Database);

  config["vector_width"] = 3;  // not a value of the space: tuned for another space, or edited by hand
  tuning_db()->store(kernel_key(spec), {.config = config, .seconds = 1e-3, .default_seconds = 2e-3});
  bump_tuning_generation();
  EXPECT_FALSE(tuned_knobs(spec));
}

// A row kernel of softmax's form and shape that computes something else
// (tanh where softmax has exp: three loops over each row all the same) has
// a key of its own, so knobs tuned for softmax are not applied to it.
TEST_F(KernelTuning, AnotherRowKernelOfSoftmaxsShapeDoesNotTakeItsKnobs) {
  const KernelSpec softmax = target("softmax", {64, 256});
  KernelSpec other = softmax;
  ASSERT_EQ(other.instrs[2].op, kiln::trace::OpId::Exp);
  other.instrs[2].op = kiln::trace::OpId::Tanh;
  EXPECT_NE(kernel_key(other), kernel_key(softmax));
  kiln::autotune::Config config;
  const kiln::autotune::ConfigSpace space = kernel_space(softmax);
  for (const kiln::autotune::Knob& knob : space.knobs()) config[knob.name] = knob.values.back();
  tuning_db()->store(kernel_key(softmax), {.config = config, .seconds = 1e-3, .default_seconds = 2e-3});
  bump_tuning_generation();
  EXPECT_TRUE(tuned_knobs(softmax));
  EXPECT_FALSE(tuned_knobs(other));
}

TEST_F(KernelTuning, LaunchKnobsKeepTheKey) {
  KernelSpec spec = target("sum", {1000});
  const std::uint64_t untuned = spec.key();
  spec.knobs.partial_chunk = 4096;
  spec.knobs.grain = 8192;
  EXPECT_EQ(spec.key(), untuned);
  spec.knobs.interleave = 2;
  EXPECT_NE(spec.key(), untuned);
}

TEST_F(KernelTuning, ARunStoresAWinnerTheLookupReturns) {
  kiln::tune::Options options;
  options.budget_seconds = 2;
  const kiln::tune::Result r = kiln::tune::run(kiln::tune::parse_target("softmax", "32x256"), options);
  EXPECT_TRUE(r.stored);
  EXPECT_EQ(r.key, "row_reduce/f32/amax.sub.exp.sum.reciprocal.mul/" + threads() + "/32x256");
  EXPECT_GT(r.tuned_ms, 0);
  EXPECT_GT(r.gbytes_per_second, 0);
  EXPECT_EQ(r.gflops, 0);
  EXPECT_LE(r.tuned_ms, r.default_ms);
  const std::optional<KernelKnobs> knobs = tuned_knobs(target("softmax", {32, 256}));
  ASSERT_TRUE(knobs);
  EXPECT_EQ(kiln::autotune::to_string(kernel_space(target("softmax", {32, 256})).at(0)) == r.config,
            *knobs == KernelKnobs{})
      << "the stored config is the winner's: " << r.config;
}

TEST(FusedTuneTarget, BadTextIsAValueErrorNamingIt) {
  const auto message = tuning_test::parse_target_error;
  EXPECT_EQ(message("sum", "16x16"), "kiln tune: sum takes 1 extent (elements), got '16x16'");
  EXPECT_EQ(message("softmax", "4096"), "kiln tune: softmax takes 2 extents (rows x columns), got '4096'");
  EXPECT_NE(message("softmax", "0x1024").find("bad shape '0x1024' for softmax"), std::string::npos);
  EXPECT_NE(message("exp", "").find("bad shape '' for exp"), std::string::npos);
  EXPECT_NE(message("sums", "8").find("(kernels: matmul, linear, matmul_tn, sum, softmax, exp)"), std::string::npos);
  EXPECT_EQ(kiln::tune::parse_target("softmax", "4096x1024").shape, (std::vector<std::int64_t>{4096, 1024}));
}

}  // namespace

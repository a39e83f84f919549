// A matrix product's right operand packed once and reused while nothing
// writes it (jit/kernels/gemm_prepacked.h): a weight in inference is packed
// at its second use and read from the cache after, on tier 0 and tier 1;
// every way of changing the weight's bytes -- an in-place op, copy_, a write
// later in the same segment, a replay of a compiled program, a write through
// data_ptr(), lent memory changed by its owner -- gives products of the new
// bytes, each against a plain loop over the values read back. A weight that
// dies takes its panels with it, and a budget empties the cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "jit/kernels/gemm_prepacked.h"
#include "tests/jit_tier1/tiers.h"

namespace {

using kiln::Tensor;
namespace F = kiln::nn::functional;
using kiln::jit::kernels::prepack_stats;

// 40 rows: past the few-rows path, which packs nothing. 1000 inputs and
// 300 outputs: two depth blocks and two column blocks of packed panels.
constexpr std::int64_t kRows = 40, kIn = 1000, kOut = 300;

// relu(x · wᵀ + b) from the values, in double (no b: without it, no relu).
std::vector<double> reference(const Tensor& x, const Tensor& w, const Tensor& b = {}) {
  const std::vector<double> xv = x.to_vector<double>(), wv = w.to_vector<double>();
  const std::vector<double> bv = b.defined() ? b.to_vector<double>() : std::vector<double>();
  const std::int64_t rows = x.size(0), in = x.size(1), out = w.size(0);
  std::vector<double> y(static_cast<std::size_t>(rows * out));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < out; ++j) {
      double s = 0;
      for (std::int64_t k = 0; k < in; ++k) s += xv[i * in + k] * wv[j * in + k];
      y[i * out + j] = b.defined() ? std::max(0.0, s + bv[j]) : s;
    }
  return y;
}

::testing::AssertionResult matches(const Tensor& y, const std::vector<double>& want) {
  const std::vector<double> got = y.to_vector<double>();
  for (std::size_t i = 0; i < want.size(); ++i)
    if (std::abs(got[i] - want[i]) > 1e-3 * (1 + std::abs(want[i])))
      return ::testing::AssertionFailure() << "element " << i << ": " << got[i] << ", want " << want[i];
  return ::testing::AssertionSuccess();
}

class PrepackedWeights : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam()) tier1_.emplace();
    else kiln::jit::set_enabled(false);
    kiln::manual_seed(3);
    x_ = kiln::randn({kRows, kIn});
    w_ = kiln::randn({kOut, kIn});
    b_ = kiln::randn({kOut});
    kiln::sync();
  }

  // A linear layer with its activation: on tier 1, the product's epilogue.
  Tensor product() {
    Tensor y = kiln::relu(F::linear(x_, w_, b_));
    kiln::sync();
    return y;
  }
  std::vector<double> want() { return reference(x_, w_, b_); }

  // Products of w until the cache serves one (packed at the second
  // product of the same bytes at the latest), then one that it serves.
  void warm() {
    for (int i = 0; i < 2; ++i) ASSERT_TRUE(matches(product(), want()));
    const auto before = prepack_stats();
    ASSERT_TRUE(matches(product(), want()));
    ASSERT_EQ(prepack_stats().hits - before.hits, 1u) << "the product read packed panels";
  }

  std::optional<tiers::Tier1Scope> tier1_;
  Tensor x_, w_, b_;
};

TEST_P(PrepackedWeights, AnUnchangedWeightIsPackedOnceAndReused) {
  const auto before = prepack_stats();
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(matches(product(), want()));
  EXPECT_EQ(prepack_stats().packed - before.packed, 1u) << "packed at its second product, not its first";
  EXPECT_EQ(prepack_stats().hits - before.hits, 4u) << "read at every product after";
  const kiln::Stats stats = kiln::stats();
  EXPECT_GT(stats.prepacked_bytes, 0u);
  EXPECT_EQ(stats.prepacked_bytes, prepack_stats().bytes) << "kiln::stats() and the dashboard show it";
  EXPECT_EQ(stats.prepacked_hits, prepack_stats().hits);
}

TEST_P(PrepackedWeights, EveryKindOfWriteGivesProductsOfTheNewBytes) {
  const std::vector<std::pair<std::string, std::function<void()>>> writes = {
      {"add_", [&] { w_.add_(1.0); }},
      {"copy_", [&] { w_.copy_(kiln::randn({kOut, kIn})); }},
      {"mul_ of a view", [&] { w_.narrow(0, 10, 5).mul_(-2.0); }},
      {"data_ptr", [&] { w_.data_ptr<float>()[7] = 100.0f; }},
  };
  for (const auto& [name, write] : writes) {
    SCOPED_TRACE(name);
    warm();
    write();
    EXPECT_TRUE(matches(product(), want()));
    EXPECT_TRUE(matches(product(), want()));
  }
}

TEST_P(PrepackedWeights, AWriteLaterInTheSameSegmentIsSeen) {
  warm();
  // One segment: two products of the weight (the second would pack it,
  // were its bytes taken as known), a write into it, a product of the new
  // bytes, which must not read the old panels.
  Tensor before = F::linear(x_, w_), again = F::linear(x_, w_);
  w_.mul_(0.5);
  Tensor after = F::linear(x_, w_);
  kiln::sync();
  std::vector<double> want = reference(x_, w_);
  EXPECT_TRUE(matches(after, want));
  for (double& v : want) v *= 2;
  EXPECT_TRUE(matches(before, want));
  EXPECT_TRUE(matches(again, want));
}

TEST_P(PrepackedWeights, AReplayOfACompiledProgramThatWritesTheWeightIsSeen) {
  // The program updates w in place (its state); a replay runs its segment
  // without recording, so no version counter moves.
  auto step = kiln::compile([this](const Tensor& scale) {
    w_.mul_(scale);
    return w_.sum();
  });
  const Tensor half = kiln::full({}, 0.5);
  for (int call = 0; call < 4; ++call) {
    SCOPED_TRACE("call " + std::to_string(call));
    warm();
    step(half);
    kiln::sync();
    EXPECT_TRUE(matches(product(), want()));
  }
}

TEST_P(PrepackedWeights, LentMemoryIsNeverKept) {
  std::vector<float> lent = w_.to_vector<float>();
  Tensor w = kiln::from_blob(lent.data(), {kOut, kIn});
  const auto before = prepack_stats();
  for (int i = 0; i < 3; ++i) {
    lent[static_cast<std::size_t>(i * 31)] += 10.0f;  // the owner writes behind kiln
    Tensor y = F::linear(x_, w);
    kiln::sync();
    EXPECT_TRUE(matches(y, reference(x_, w)));
  }
  EXPECT_EQ(prepack_stats().packed, before.packed);
}

TEST_P(PrepackedWeights, NothingIsKeptWhenTurnedOffOrUnderABudget) {
  const std::uint64_t limit = kiln::prepack_max_bytes();
  kiln::set_prepack_max_bytes(0);
  auto before = prepack_stats();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(matches(product(), want()));
  EXPECT_EQ(prepack_stats().packed, before.packed);
  EXPECT_EQ(prepack_stats().hits, before.hits);
  kiln::set_prepack_max_bytes(limit);

  warm();
  kiln::set_memory_budget(std::size_t{1} << 30);
  w_ = kiln::randn({kOut, kIn});  // a weight no product has read
  before = prepack_stats();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(matches(product(), want()));
  EXPECT_EQ(prepack_stats().packed, before.packed);
  EXPECT_EQ(prepack_stats().bytes, 0u) << "what was kept before the budget goes: it could not be evicted";
  kiln::set_memory_budget(0);
}

TEST_P(PrepackedWeights, AWeightThatDiesTakesItsPanelsWithIt) {
  const std::uint64_t kept_before = prepack_stats().bytes;
  warm();
  EXPECT_GT(prepack_stats().bytes, kept_before);
  w_ = kiln::randn({kOut, kIn});  // the old weight's storage dies, as an unloaded model's would
  kiln::sync();
  EXPECT_EQ(prepack_stats().bytes, kept_before);
  warm();  // and the new one is packed as any
}

INSTANTIATE_TEST_SUITE_P(Tiers, PrepackedWeights, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "Tier1" : "Tier0"; });

}  // namespace

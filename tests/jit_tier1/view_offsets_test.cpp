// A fused group that reads several views of one tensor, equal in strides but
// at different offsets (max pooling's select over each kernel offset of its
// windows), runs compiled: each view is its own kernel input.
#include <gtest/gtest.h>
#include <kiln/kiln.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tests/jit_tier1/tiers.h"

namespace {

using kiln::Tensor;

// The rows of x, chained through selects as max_pool2d chains the rows of its windows.
Tensor row_maximum(const Tensor& x) {
  Tensor y = x.select(0, 0);
  for (std::int64_t k = 1; k < x.size(0); ++k) y = kiln::where(x.select(0, k) > y, x.select(0, k), y);
  return y;
}

TEST(Tier1ViewOffsets, ViewsOfOneTensorAtDifferentOffsetsRunCompiled) {
  // Row k holds (i * (k + 3)) mod 17: each row's values differ, so the
  // maximum comes from a different row per column.
  Tensor x = ((kiln::arange(64, kiln::kFloat32).unsqueeze(0) * (kiln::arange(4, kiln::kFloat32).unsqueeze(1) + 3))
                  .fmod(17))
                 .contiguous();
  std::vector<float> want(64);
  for (int i = 0; i < 64; ++i)
    for (int k = 0; k < 4; ++k) want[i] = std::max(want[i], static_cast<float>((i * (k + 3)) % 17));

  tiers::Tier1Scope scope;
  EXPECT_EQ(row_maximum(x).to_vector<float>(), want) << "first run, compiling";
  const kiln::JitStats before = kiln::stats().jit;
  for (int run = 0; run < 3; ++run) EXPECT_EQ(row_maximum(x).to_vector<float>(), want) << "run " << run;
  const kiln::JitStats after = kiln::stats().jit;
  EXPECT_EQ(after.group_runs_interpreted, before.group_runs_interpreted);
  EXPECT_GE(after.group_runs_compiled - before.group_runs_compiled, 3u);
}

TEST(Tier1ViewOffsets, MaxPoolOfTilingWindowsRunsCompiledAsOnTierZero) {
  // Without a gradient, 2x2 windows that tile the input are four strided
  // views of it; ties and NaNs must resolve as on tier 0.
  std::vector<float> values(2 * 3 * 6 * 8);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = i % 11 == 3 ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>((i * 7 + i / 5) % 3);
  const Tensor x = kiln::tensor(values).view({2, 3, 6, 8});
  kiln::jit::set_enabled(false);
  const std::vector<float> want = kiln::max_pool2d(x, 2).to_vector<float>();
  auto same = [&](const std::vector<float>& got) {
    if (got.size() != want.size()) return false;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (!(got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i])))) return false;
    return true;
  };
  tiers::Tier1Scope scope;
  EXPECT_TRUE(same(kiln::max_pool2d(x, 2).to_vector<float>())) << "first run, compiling";
  const kiln::JitStats before = kiln::stats().jit;
  EXPECT_TRUE(same(kiln::max_pool2d(x, 2).to_vector<float>()));
  const kiln::JitStats after = kiln::stats().jit;
  EXPECT_EQ(after.group_runs_interpreted, before.group_runs_interpreted);
  EXPECT_GT(after.group_runs_compiled, before.group_runs_compiled);
}

}  // namespace

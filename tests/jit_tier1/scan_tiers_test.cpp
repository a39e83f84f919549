// cumsum, cumprod, sort, argsort and topk (tier-0 kernels, never fused) between
// fusible elementwise ops, forward and backward, on tier 0 and tier 1: the
// fused groups around them must read and feed them the same values.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "tests/jit_tier1/tiers.h"

namespace {

using kiln::Tensor;
using tiers::tiers_agree;

Tensor mixed(std::vector<std::int64_t> shape, kiln::ScalarType t) {
  kiln::manual_seed(13);
  return (kiln::randn(shape, kiln::kFloat64) * 4).to(t);
}

TEST(Tier1Scan, CumsumSortTopkBetweenFusedOps) {
  for (kiln::ScalarType t : {kiln::kFloat32, kiln::kFloat64, kiln::kInt32, kiln::kInt64}) {
    SCOPED_TRACE(kiln::to_string(t));
    const Tensor x = mixed({6, 7}, t);
    EXPECT_TRUE(tiers_agree([&] {
      Tensor y = (x * 2 + 1).cumsum(1);
      auto [values, indices] = (y - 3).abs().sort(0, true);
      auto [top, top_indices] = (values * 2).topk(3, 1, false);
      return std::vector<Tensor>{y * 3 - 1,          values + 1,
                                 indices * 2,        top.relu(),
                                 top_indices,        (x + 1).argsort(1),
                                 y.t().cumsum(0, kiln::kFloat64) / 2, (x.clamp(-2, 2) * 1).cumprod(0) + 1};
    }));
  }
}

TEST(Tier1Scan, GradientsThroughCumsumCumprodAndSort) {
  for (kiln::ScalarType t : {kiln::kFloat32, kiln::kFloat64}) {
    SCOPED_TRACE(kiln::to_string(t));
    EXPECT_TRUE(tiers_agree([&] {
      Tensor x;
      {
        kiln::NoGradGuard no_grad;
        x = mixed({5, 8}, t);
      }
      x.requires_grad_(true);
      Tensor y = std::get<0>((x * x).cumsum(1).sort(1, true)).tanh() + std::get<0>(x.topk(2, 0)).sum() * 0.5 +
                 (x * 0.25).cumprod(1);
      y.backward(kiln::ones_like(y));
      return std::vector<Tensor>{y, x.grad()};
    }));
  }
}

}  // namespace

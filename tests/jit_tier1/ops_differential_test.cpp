// Every fusible op, alone and in chains, on tier 0 and tier 1: all dtypes it
// supports, broadcasting, strided and expanded inputs, scalars, casts.
#include <gtest/gtest.h>

#include <string>

#include "tests/jit_tier1/tiers.h"

namespace {

using kiln::Tensor;
using tiers::tiers_agree;

// Values in a safe range for every op (log of positives, no overflow).
Tensor positive(std::vector<std::int64_t> shape, kiln::ScalarType t) {
  kiln::manual_seed(7);
  return (kiln::rand(shape, kiln::kFloat64) * 3 + 0.25).to(t);
}
Tensor mixed(std::vector<std::int64_t> shape, kiln::ScalarType t) {
  kiln::manual_seed(11);
  return (kiln::randn(shape, kiln::kFloat64) * 4).to(t);
}

const kiln::ScalarType kFloats[] = {kiln::kFloat32, kiln::kFloat64};
const kiln::ScalarType kAll[] = {kiln::kFloat32, kiln::kFloat64, kiln::kInt32, kiln::kInt64};

TEST(Tier1Ops, UnaryFloatOps) {
  using F = Tensor (*)(const Tensor&);
  const std::pair<const char*, F> ops[] = {
      {"exp", kiln::exp},     {"log", kiln::log},         {"log1p", kiln::log1p}, {"sqrt", kiln::sqrt},
      {"rsqrt", kiln::rsqrt}, {"reciprocal", kiln::reciprocal}, {"sin", kiln::sin},         {"cos", kiln::cos},     {"tanh", kiln::tanh},
      {"sigmoid", kiln::sigmoid}, {"relu", kiln::relu},   {"neg", kiln::neg},     {"abs", kiln::abs},
      {"floor", kiln::floor},     {"ceil", kiln::ceil},   {"round", kiln::round}, {"trunc", kiln::trunc}};
  for (kiln::ScalarType t : kFloats) {
    for (auto [name, op] : ops) {
      SCOPED_TRACE(std::string(name) + " " + kiln::to_string(t));
      Tensor x = positive({37, 19}, t);
      EXPECT_TRUE(tiers_agree([&] { return std::vector<Tensor>{op(x)}; }));
    }
    SCOPED_TRACE("gelu");
    Tensor x = mixed({1000}, t);
    EXPECT_TRUE(tiers_agree([&] { return std::vector<Tensor>{kiln::gelu(x), kiln::gelu(x, "tanh")}; }));
  }
}

TEST(Tier1Ops, IntegerUnaryAndBinaryOpsAreExact) {
  for (kiln::ScalarType t : {kiln::kInt32, kiln::kInt64}) {
    SCOPED_TRACE(kiln::to_string(t));
    Tensor a = mixed({513}, t), b = mixed({513}, t) + 1;
    EXPECT_TRUE(tiers_agree([&] {
      return std::vector<Tensor>{-a, a.abs(), a.relu(), a + b, a - b, a * b, kiln::maximum(a, b), kiln::minimum(a, b),
                                 kiln::pow(a, 3), a / b, a * 3 - 7};
    }));
  }
}

TEST(Tier1Ops, BinaryOpsWithBroadcastingAndScalars) {
  for (kiln::ScalarType t : kAll) {
    SCOPED_TRACE(kiln::to_string(t));
    Tensor a = positive({6, 1, 5}, t), b = positive({4, 1}, t);
    EXPECT_TRUE(tiers_agree([&] {
      return std::vector<Tensor>{a + b,         a - b,    a * b,         a / b,         kiln::maximum(a, b),
                                 kiln::minimum(a, b), a * 2.5, 3 - a, kiln::pow(a, 2), a == b, a < b, a >= b, a != 1};
    }));
  }
}

TEST(Tier1Ops, FloatPowAndDivisionFollowIeee) {
  Tensor a = mixed({300}, kiln::kFloat32), b = mixed({300}, kiln::kFloat32);
  EXPECT_TRUE(tiers_agree([&] { return std::vector<Tensor>{kiln::pow(a.abs(), b), a / b, a / 0.0}; }));
}

TEST(Tier1Ops, WhereLogicalAndCasts) {
  Tensor a = mixed({8, 9}, kiln::kFloat32), b = mixed({8, 9}, kiln::kFloat64), i = mixed({9}, kiln::kInt32);
  EXPECT_TRUE(tiers_agree([&] {
    Tensor c = a > 0;
    return std::vector<Tensor>{kiln::where(c, a, b),     kiln::where(c, i, 2.5),     c.logical_not(),
                               kiln::logical_and(c, b < 1), kiln::logical_or(c, i > 0), a + i, b * i,
                               a.to(kiln::kInt64),       i.to(kiln::kBool),          (a > 0).to(kiln::kFloat32)};
  }));
}

TEST(Tier1Ops, StridedExpandedAndSlicedInputs) {
  Tensor base = mixed({16, 24}, kiln::kFloat32);
  EXPECT_TRUE(tiers_agree([&] {
    Tensor t = base.t();                               // strides (1, 24)
    Tensor s = base.slice(1, 1, 24, 3);                // step 3
    Tensor e = base.select(0, 2).expand({5, 24});      // stride 0
    return std::vector<Tensor>{(t * 2 + 1).exp(), s.tanh() - s, e + base.narrow(0, 3, 5), t.t() * base};
  }));
}

TEST(Tier1Ops, GeluWrittenOpByOpIsOneKernel) {
  Tensor x = mixed({1 << 16}, kiln::kFloat32);
  auto gelu = [&] {
    Tensor inner = (x + 0.044715 * x * x * x) * 0.7978845608028654;
    return std::vector<Tensor>{0.5 * x * (1 + inner.tanh())};
  };
  // Compiled, or loaded from the disk cache an earlier run of this test filled.
  auto kernels = [] { return kiln::stats().jit.compiles_requested + kiln::stats().jit.disk_cache_hits; };
  std::uint64_t before = kernels();
  EXPECT_TRUE(tiers_agree(gelu));
  EXPECT_EQ(kernels(), before + 1) << "the whole chain is one fused kernel";
}

TEST(Tier1Ops, FusedIntermediatesAreNeverAllocated) {
  Tensor x = mixed({4096}, kiln::kFloat32);
  auto chain = [&] { return std::vector<Tensor>{((x * 2).exp() + 1).log().relu()}; };
  EXPECT_TRUE(tiers_agree(chain));
  tiers::Tier1Scope scope;
  std::uint64_t before = kiln::stats().intermediate_bytes;
  (void)tiers::evaluate(chain);
  EXPECT_EQ(kiln::stats().intermediate_bytes, before) << "tier 1 keeps the chain's temporaries in registers";
}

TEST(Tier1Ops, InPlaceChainsAndAliasing) {
  Tensor seed = mixed({12, 12}, kiln::kFloat32);
  EXPECT_TRUE(tiers_agree([&] {
    Tensor a = seed.clone();
    a.mul_(2).add_(1).relu_();
    Tensor b = seed.clone();
    b.add_(b.t());  // overlapping views: must equal b + b.t() computed first
    Tensor c = seed.clone();
    c.narrow(0, 2, 4).mul_(10);  // a partial write through a view
    return std::vector<Tensor>{a, b, c};
  }));
}

TEST(Tier1Ops, ZeroSizeAndSingleElement) {
  Tensor empty = kiln::zeros({0, 5}), one = kiln::full({1, 1}, 3.0);
  EXPECT_TRUE(tiers_agree([&] { return std::vector<Tensor>{(one * 2).exp(), one.sqrt() + 1}; }));
  kiln::jit::set_hot_threshold(1);
  tiers::Tier1Scope scope;
  EXPECT_EQ((empty * 2 + 1).numel(), 0);
}

}  // namespace

// Reductions on tier 1: every reduction op and dtype, alone and fused with
// producers and consumers, over dims that include the last (row kernels)
// and over every dim (partial kernels), against tier 0 and a plain
// reference. Each fused case also asserts that the whole segment became ONE
// kernel, so the test fails if fusion silently stops.
//
// Tolerances: exact for integer and bool results; floating results within
// 1e-5 relative (tiers::agree), sums of float32 over 200k elements within
// 1e-6 relative (both tiers accumulate in double; only the order differs).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <kiln/kiln.h>

#include "jit/tier1/segment_jit.h"
#include "tests/common/reference.h"
#include "tests/jit_tier1/reduction_cases.h"
#include "tests/jit_tier1/tiers.h"

namespace {

using kiln::Tensor;
using reduction_cases::one_kernel;
using reduction_cases::matches;

const kiln::ScalarType kAll[] = {kiln::kFloat32, kiln::kFloat64, kiln::kInt32, kiln::kInt64, kiln::kBool};

kref::Ref values(const kref::Shape& s, kiln::ScalarType t, unsigned seed) {
  if (t == kiln::kBool) return kref::random_steps(s, seed, 0, 1, 1);
  return kref::random_steps(s, seed, -3, 3, kiln::is_floating_point(t) ? 0.5 : 1);
}

TEST(RowReduction, EveryOpAndDtypeAloneAndFused) {
  enum Op { Sum, Prod, Amax, Amin, Argmax, Argmin };
  for (int op = Sum; op <= Argmin; ++op) {
    for (kiln::ScalarType t : kAll) {
      for (bool keep : {false, true}) {
        const kref::Shape shape = op == Prod ? kref::Shape{6, 9} : kref::Shape{6, 37};
        const kref::Ref ref = values(shape, t, 7 + op);
        const Tensor x = kref::make(ref, t);
        auto reduce = [&](const Tensor& in) {
          switch (op) {
            case Sum: return in.sum({1}, keep);
            case Prod: return in.prod(1, keep);
            case Amax: return in.amax({1}, keep);
            case Amin: return in.amin({1}, keep);
            case Argmax: return in.argmax(1, keep);
            default: return in.argmin(1, keep);
          }
        };
        const auto fold = op == Sum    ? kref::sum_of
                          : op == Prod ? kref::prod_of
                          : op == Amax ? kref::max_of
                          : op == Amin ? kref::min_of
                          : op == Argmax ? kref::argmax_of
                                         : kref::argmin_of;
        const std::string label = std::string("op ") + std::to_string(op) + " " + kiln::to_string(t) + (keep ? " keepdim" : "");
        EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{reduce(x)}; })) << label;
        EXPECT_TRUE(matches(reduce(x), kref::reduce(ref, {1}, keep, fold))) << label;

        // Producer (x * x, or not x for bool) and consumers: the reduced
        // value at reduced shape and broadcast back over the row (a bool result
        // is widened first: subtraction rejects bool operands, as LibTorch does).
        auto fused = [&] {
          const Tensor y = t == kiln::kBool ? x.logical_not() : x * x;
          const Tensor r = reduce(y);
          const Tensor rk = keep ? r : r.unsqueeze(1);
          const kiln::ScalarType dt = rk.dtype() == kiln::kBool ? kiln::kInt64 : rk.dtype();
          return std::vector<Tensor>{r + 1, y.to(dt) - rk.to(dt)};
        };
        EXPECT_TRUE(one_kernel(fused)) << label << " with producer and consumers";
      }
    }
  }
}

TEST(RowReduction, NanAndTiesFollowTierZero) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  kref::Ref ref({4, 5}, {1, 3, 3, 2, 0,  //
                         nan, 1, 5, nan, 2,  //
                         4, 4, nan, 9, 9,  //
                         -1, -1, -1, -1, -1});
  for (kiln::ScalarType t : {kiln::kFloat32, kiln::kFloat64}) {
    const Tensor x = kref::make(ref, t);
    auto program = [&] {
      return std::vector<Tensor>{x.amax({1}), x.amin({1}), x.argmax(1), x.argmin(1), (x * 2).argmax(1, true)};
    };
    EXPECT_TRUE(one_kernel(program)) << kiln::to_string(t);
    EXPECT_TRUE(matches(x.argmax(1), kref::reduce(ref, {1}, false, kref::argmax_of)));
    EXPECT_TRUE(matches(x.argmin(1), kref::reduce(ref, {1}, false, kref::argmin_of)));
    EXPECT_TRUE(matches(x.amax({1}), kref::reduce(ref, {1}, false, kref::max_of)));
  }
}

// Long rows and whole tensors run the vector loop, whose floating amax and
// amin keep a NaN seen in a flag beside the running value (emit_reduce.h):
// a NaN at any position, alone or beside infinities, is the result.
TEST(RowReduction, ANanAnywhereInAVectorLoopIsTheExtreme) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  kref::Ref rows = values({7, 1000}, kiln::kFloat64, 21);
  rows.v[1 * 1000 + 0] = nan;
  rows.v[2 * 1000 + 517] = nan;
  rows.v[3 * 1000 + 999] = nan;
  rows.v[4 * 1000 + 3] = nan, rows.v[4 * 1000 + 700] = inf;
  for (std::int64_t j = 0; j < 1000; ++j) rows.v[5 * 1000 + j] = -inf;
  rows.v[6 * 1000 + 64] = inf, rows.v[6 * 1000 + 65] = -inf;
  kref::Ref whole = values({200003}, kiln::kFloat64, 22);
  whole.v[150001] = nan;
  for (kiln::ScalarType t : {kiln::kFloat32, kiln::kFloat64}) {
    const Tensor x = kref::make(rows, t);
    const Tensor w = kref::make(whole, t);
    EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.amax({1}), x.amin({1})}; })) << kiln::to_string(t);
    EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{w.amax(), w.amin()}; })) << kiln::to_string(t);
    const tiers::Tier1Scope scope;
    EXPECT_TRUE(matches(x.amax({1}), kref::reduce(rows, {1}, false, kref::max_of))) << kiln::to_string(t);
    EXPECT_TRUE(matches(x.amin({1}), kref::reduce(rows, {1}, false, kref::min_of))) << kiln::to_string(t);
    EXPECT_TRUE(std::isnan(w.amax().item<double>())) << kiln::to_string(t);
    EXPECT_TRUE(std::isnan(w.amin().item<double>())) << kiln::to_string(t);
  }
}

TEST(RowReduction, StridedAndBroadcastInputs) {
  const kref::Ref ref = values({37, 6}, kiln::kFloat32, 3);
  const Tensor base = kref::make(ref, kiln::kFloat32);
  const Tensor row = kref::make(values({6}, kiln::kFloat32, 4), kiln::kFloat32);
  const Tensor wide = kref::make(values({6, 40}, kiln::kFloat32, 5), kiln::kFloat32);
  const Tensor col = kref::make(values({6, 1}, kiln::kFloat32, 6), kiln::kFloat32);
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{base.t().sum({1}), (base.t() * 2).amax({1}, true)}; }));
  EXPECT_TRUE(matches(base.t().sum({1}), kref::reduce(kref::transpose(ref, 0, 1), {1}, false, kref::sum_of)));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{(wide.slice(1, 2, 39) + 1).sum({1})}; }));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{col.expand({6, 37}).sum({1})}; }));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{(base + row).softmax(1)}; }));
  // [2, 3, 4] reduced over its last two dims, and over a permuted view.
  const Tensor cube = kref::make(values({2, 3, 4}, kiln::kFloat64, 8), kiln::kFloat64);
  // argmax over dim 1 of 3 keeps the last dim: it runs on tier 0.
  EXPECT_TRUE(tiers::tiers_agree([&] { return std::vector<Tensor>{cube.sum({1, 2}), (cube * 2).argmax(1)}; }));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{cube.sum({1, 2}), (cube - 1).amin({1, 2}, true)}; }));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{cube.permute({2, 0, 1}).amax({1, 2}, true)}; }));
}

TEST(RowReduction, CompositesAreOneKernel) {
  const kref::Ref ref = values({8, 100}, kiln::kFloat32, 9);
  const Tensor x = kref::make(ref, kiln::kFloat32);
  const Tensor w = kref::make(values({100}, kiln::kFloat32, 10), kiln::kFloat32);
  const Tensor b = kref::make(values({100}, kiln::kFloat32, 11), kiln::kFloat32);
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.softmax(1)}; }));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.log_softmax(-1)}; }));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.logsumexp({1}, false)}; }));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.logsumexp({1}, true)}; }));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.var({1}, true, false)}; }));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.std({1}, false, true)}; }));
  auto layer_norm = [&] {
    const Tensor mean = x.mean({-1}, true);
    const Tensor var = ((x - mean) * (x - mean)).mean({-1}, true);
    return std::vector<Tensor>{(x - mean) * (var + 1e-5).rsqrt() * w + b};
  };
  EXPECT_TRUE(one_kernel(layer_norm));
  EXPECT_TRUE(matches(x.softmax(1), kref::softmax(ref, 1), 1e-5));
  EXPECT_TRUE(matches(x.log_softmax(1), kref::softmax(ref, 1, true), 1e-5));
  EXPECT_TRUE(matches(x.logsumexp({1}, false), kref::reduce(ref, {1}, false, kref::logsumexp_of), 1e-5));
  auto var = [](const std::vector<double>& g) { return kref::var_of(g, true); };
  EXPECT_TRUE(matches(x.var({1}, true, false), kref::reduce(ref, {1}, false, var), 1e-5));
}

TEST(RowReduction, InPlaceWritesAroundReductions) {
  const Tensor x = kref::make(values({6, 40}, kiln::kFloat32, 18), kiln::kFloat32);
  // Over a value the group computed: fused.
  EXPECT_TRUE(one_kernel([&] {
    Tensor y = x * 2;
    y.sub_(y.amax({1}, true));
    Tensor m = y.sum({1}, true);
    m.mul_(0.5);
    return std::vector<Tensor>{y, m, y / m};
  }));
  // Over an input that later loops would read again: not fused into the
  // reducing kernel, and still right.
  EXPECT_TRUE(tiers::tiers_agree([&] {
    Tensor t = x.clone();
    kiln::sync();
    Tensor s = t.sum({1}, true);
    t.sub_(s);
    return std::vector<Tensor>{t, s, t.amax({1})};
  }));
}

TEST(RowReduction, ReductionsKeepingTheLastDimStayOnTierZero) {
  const Tensor x = kref::make(values({8, 20}, kiln::kFloat32, 12), kiln::kFloat32);
  EXPECT_TRUE(tiers::tiers_agree([&] { return std::vector<Tensor>{(x * 2).softmax(0), (x + 1).sum({0})}; }));
  const std::shared_ptr<const kiln::jit::SegmentJit> s = kiln::jit::last_segment_jit();
  ASSERT_TRUE(s != nullptr && s->planned.load());
  for (const auto& g : s->groups) EXPECT_FALSE(g.spec.has_reduction()) << g.spec.to_string();
}

// Reductions over leading dims and the last (batch norm's over dims 0, 2
// and 3 of [N, C, H, W]): rows over the kept dims, each walking the
// reduced ones, in one kernel with their producers and consumers.
TEST(RowReduction, ReductionsOverLeadingAndTrailingDimsAreRowKernels) {
  const kref::Ref ref = values({4, 3, 5, 6}, kiln::kFloat32, 21);
  const Tensor x = kref::make(ref, kiln::kFloat32);
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.sum({0, 2, 3}), (x * 2).amax({0, 2, 3}, true)}; }));
  EXPECT_TRUE(matches(x.sum({0, 2, 3}), kref::reduce(ref, {0, 2, 3}, false, kref::sum_of), 1e-6));
  EXPECT_TRUE(matches(x.amax({0, 2, 3}, true), kref::reduce(ref, {0, 2, 3}, true, kref::max_of)));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{(x - 1).mean({0, 3})}; }));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.sum({1, 3}, true)}; }));
  EXPECT_TRUE(matches((x - 1).mean({0, 3}), kref::reduce(kref::map(ref, [](double v) { return v - 1; }), {0, 3},
                                                         false, kref::mean_of),
                      1e-6));
  const Tensor w = kref::make(values({3}, kiln::kFloat32, 22), kiln::kFloat32);
  const Tensor b = kref::make(values({3}, kiln::kFloat32, 23), kiln::kFloat32);
  auto batch_norm = [&] {
    const Tensor mean = x.mean({0, 2, 3}, true);
    const Tensor centered = x - mean;
    const Tensor var = (centered * centered).mean({0, 2, 3}, true);
    return std::vector<Tensor>{centered * (var + 1e-5).rsqrt() * w.reshape({1, 3, 1, 1}) + b.reshape({1, 3, 1, 1}),
                               mean.reshape({3}), var.reshape({3})};
  };
  EXPECT_TRUE(one_kernel(batch_norm));
  auto biased_var = [](const std::vector<double>& g) { return kref::var_of(g, false); };
  EXPECT_TRUE(matches(batch_norm()[2], kref::reduce(ref, {0, 2, 3}, false, biased_var), 1e-5));
  // A transposed input: the rows' inner loop walks its last dim with a stride.
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.transpose(1, 3).sum({0, 3})}; }));
  EXPECT_TRUE(matches(x.transpose(1, 3).sum({0, 3}),
                      kref::reduce(kref::transpose(ref, 1, 3), {0, 3}, false, kref::sum_of), 1e-6));
}

// The batch is a reduced dim of such a row kernel: a kernel compiled for
// one batch size must not serve another.
TEST(RowReduction, ReductionsOverTheBatchAreRightForEveryBatchSize) {
  const tiers::Tier1Scope scope(2);  // hot at 2 runs, alone or as a shape family
  const kiln::Stats before = kiln::stats();
  for (int n = 1; n <= 9; ++n) {
    const kref::Ref ref = values({n, 4, 3, 5}, kiln::kFloat32, 30 + n);
    const Tensor x = kref::make(ref, kiln::kFloat32);
    for (int run = 0; run < 2; ++run)
      EXPECT_TRUE(matches((x * 2).sum({0, 2, 3}), kref::reduce(kref::map(ref, [](double v) { return 2 * v; }),
                                                                   {0, 2, 3}, false, kref::sum_of),
                          1e-6))
          << n << " samples";
  }
  EXPECT_GE(kiln::stats().jit.group_runs_compiled - before.jit.group_runs_compiled, 9u);
}

TEST(RowReduction, EmptyAndSizeOneDims) {
  const Tensor no_cols = kiln::ones({4, 0});
  const Tensor no_rows = kiln::ones({0, 5});
  const Tensor one_col = kref::make(values({4, 1}, kiln::kFloat32, 13), kiln::kFloat32);
  const Tensor one_row = kref::make(values({1, 33}, kiln::kFloat32, 14), kiln::kFloat32);
  const Tensor nothing = kiln::ones({0});
  kiln::sync();
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{(no_cols * 2).sum({1}), (no_cols + 1).prod(1, true)}; }));
  EXPECT_TRUE(matches((no_cols * 2).sum({1}), kref::Ref::filled({4}, 0)));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{(no_rows * 2).sum({1})}; }));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{one_col.softmax(1), one_col.amax({1}), one_col.argmin(1)}; }));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{one_row.softmax(1), one_row.sum({1})}; }));
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{(nothing * 2).sum(), (nothing - 1).prod()}; }));
  EXPECT_TRUE(matches((nothing * 2).sum(), kref::Ref::filled({}, 0)));
}

TEST(FullReduction, ChunkedOverThreadsAgreeWithTierZero) {
  const kref::Shape shape{200003};
  for (kiln::ScalarType t : kAll) {
    const kref::Ref ref = values(shape, t, 15);
    const Tensor x = kref::make(ref, t);
    EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.sum()}; }, 1e-6)) << kiln::to_string(t);
    EXPECT_TRUE(matches(x.sum(), kref::reduce(ref, {}, false, kref::sum_of), 1e-6)) << kiln::to_string(t);
    EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{x.amax(), x.amin(), x.argmax(), x.argmin()}; }))
        << kiln::to_string(t);
    EXPECT_TRUE(matches(x.argmax(), kref::reduce(ref, {}, false, kref::argmax_of))) << kiln::to_string(t);
    if (t == kiln::kBool) continue;
    // Producers, a live elementwise result stored by the same kernel, and a 2-D input.
    EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{(x * x).sum(), x * 3, (x * 3).amax()}; }, 1e-6))
        << kiln::to_string(t);
    EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{(x.slice(0, 0, 40).reshape({8, 5}) + 1).prod()}; }));
  }
  const Tensor m = kref::make(values({301, 700}, kiln::kFloat32, 16), kiln::kFloat32);
  EXPECT_TRUE(one_kernel([&] { return std::vector<Tensor>{m.t().sum(), (m.t() - 1).abs().amax()}; }, 1e-6));
}

TEST(RowReduction, ADynamicRowCountCompilesOnce) {
  const tiers::Tier1Scope scope(2);  // hot at 2 runs, alone or as a shape family
  const kiln::Stats before = kiln::stats();
  for (int rows = 1; rows <= 24; ++rows) {
    const kref::Ref ref = values({rows, 33}, kiln::kFloat32, 17 + rows);
    const Tensor x = kref::make(ref, kiln::kFloat32);
    EXPECT_TRUE(matches(x.softmax(1), kref::softmax(ref, 1), 1e-5)) << rows << " rows";
  }
  const kiln::Stats after = kiln::stats();
  EXPECT_EQ(after.jit.dynamic_compiles - before.jit.dynamic_compiles, 1u) << "one kernel for every row count";
  EXPECT_GE(after.jit.group_runs_compiled - before.jit.group_runs_compiled, 20u);
}

}  // namespace

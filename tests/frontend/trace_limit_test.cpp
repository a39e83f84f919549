// Where the trace is cut must not change any value: a workload of
// composite ops (softmax, var, logsumexp, linear, cat, in-place through
// views) gives the same results under tiny trace limits as under the
// default, and traces far beyond the default limit stay correct.
// Float64 throughout; results compared with rel/abs 1e-12.
#include <gtest/gtest.h>

#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;

std::vector<kref::Ref> workload() {
  Tensor x = kiln::arange(24, kiln::kFloat64).reshape({2, 3, 4}) / 10;
  Tensor y = x.clone();
  y.select(1, 1).mul_(2);
  y.transpose(0, 2).select(0, 0).add_(1);  // y[:, :, 0] += 1
  Tensor pending = y * 1;                   // reads y before the next write
  y.slice(2, 1, 4, 2).sub_(y.slice(2, 0, 3, 2));
  std::vector<Tensor> outs = {
      x.softmax(2),
      x.log_softmax(0),
      x.var({1}),
      x.std({2}, false),
      x.logsumexp({0, 2}),
      kiln::matmul(x, x.transpose(1, 2)),
      kiln::nn::functional::linear(x, kiln::ones({5, 4}, kiln::kFloat64), kiln::arange(5, kiln::kFloat64)),
      kiln::cat({x, y}, 1).sum({1}),
      x.index_select(2, kiln::tensor({3, 0})),
      kiln::where(x > 1, x, -x).clamp(-1.5, 2),
      y,
      pending,
      kiln::stack({x.amax({0}), y.amin({0})}),
  };
  std::vector<kref::Ref> values;
  for (const Tensor& t : outs) values.push_back(kref::of(t));
  return values;
}

class TraceLimit : public ::testing::TestWithParam<int> {
 protected:
  void TearDown() override { kiln::set_trace_limit(4096); }
};

TEST_P(TraceLimit, CutsAnywhereGiveTheSameValues) {
  kiln::sync();
  const std::vector<kref::Ref> baseline = workload();
  kiln::set_trace_limit(GetParam());
  const std::vector<kref::Ref> cut = workload();
  ASSERT_EQ(cut.size(), baseline.size());
  for (std::size_t i = 0; i < cut.size(); ++i)
    EXPECT_TRUE(kref::close(cut[i], baseline[i], kref::kDoubleTol)) << "output " << i;
}

INSTANTIATE_TEST_SUITE_P(Limits, TraceLimit, ::testing::Values(1, 2, 3, 5, 8));

TEST(LongTrace, TenThousandOpsWithoutAReadStayCorrect) {
  Tensor x = kiln::zeros({4}, kiln::kInt64);
  Tensor snapshot;
  for (int i = 0; i < 10000; ++i) {
    if (i == 5000) snapshot = x * 1;  // a pending reader spanning several forced cuts
    x.add_(1);
  }
  EXPECT_EQ(x.to_vector<std::int64_t>(), std::vector<std::int64_t>(4, 10000));
  EXPECT_EQ(snapshot.to_vector<std::int64_t>(), std::vector<std::int64_t>(4, 5000));
}

TEST(LongTrace, LongChainOfOutOfPlaceOpsWithDroppedIntermediates) {
  Tensor x = kiln::full({3}, 1.5, kiln::kFloat64);
  double ref = 1.5;
  for (int i = 0; i < 9000; ++i) {
    x = x * 1.0001 - 0.0001;  // 18000 ops: several forced cuts; every intermediate dies at once
    ref = ref * 1.0001 - 0.0001;
  }
  for (double e : x.to_vector<double>()) EXPECT_NEAR(e, ref, 1e-12 * ref);
}

}  // namespace

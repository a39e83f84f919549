// Row and partial kernels written by hand as KernelSpecs: the CompiledFn
// contract for each form (a row kernel's range is rows; a partial kernel
// leaves one accumulator per call, combined in call order), at O1 and O3,
// over split ranges; and the structural checks of the forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <kiln/error.h>

#include "jit/fusion/kernel_phases.h"
#include "jit/orc/session.h"
#include "jit/tier1/partials.h"
#include "tests/jit_codegen/codegen_harness.h"

namespace kiln::jit::codegen_test {
namespace {

constexpr std::int64_t kRows = 5, kCols = 37;

// softmax over the last dim of [kRows, cols], and the row maxima.
KernelSpec softmax_spec(std::int64_t cols = kCols) {
  SpecBuilder b({kRows, cols});
  const ArgRef x = b.input(kFloat32);
  const ArgRef m = b.op(OpId::Amax, kFloat32, {x});
  const ArgRef e = b.op(OpId::Exp, kFloat32, {b.op(OpId::Sub, kFloat32, {x, m})});
  const ArgRef s = b.op(OpId::Sum, kFloat32, {e});
  b.output(b.op(OpId::Div, kFloat32, {e, s}), kFloat32);
  b.output(m, kFloat32, {1, 0});
  KernelSpec spec = b.spec();
  spec.row_dims = 1;
  return spec;
}

std::vector<float> sample_rows() {
  std::vector<float> x(kRows * kCols);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)) * 4);
  return x;
}

TEST(RowKernel, PhasesOfSoftmax) {
  const KernelPhases p = plan_phases(softmax_spec());
  EXPECT_EQ(p.loops, 3);  // amax; sum of exp; store
  EXPECT_EQ(p.store_loop[0], 2);
  EXPECT_EQ(p.store_loop[1], -1) << "the maxima are stored once per row";
  EXPECT_TRUE(p.in_loop[1][2]) << "exp (%2) is computed in the sum's loop";
  EXPECT_EQ(p.cache_loop[2], 1) << "which keeps it in a row buffer";
  EXPECT_EQ(p.cache_output[2], 0) << "the row of its result, which the storing loop overwrites";
  EXPECT_TRUE(p.in_loop[2][2] && p.reload[2][2]) << "that the storing loop reads";
  EXPECT_FALSE(p.in_loop[2][1]) << "so x - max (%1) is not recomputed there";
  EXPECT_TRUE(p.in_loop[1][1] && !p.reload[1][1]);
  EXPECT_EQ(p.cache_loop[1], -1) << "a cheap value is recomputed, not kept";
  EXPECT_EQ(p.row_elements, kCols);
  EXPECT_NE(softmax_spec().to_string().find("rows over dims [0, 1)"), std::string::npos);
}

TEST(RowKernel, RowsPastTheStackBudgetKeepExpInTheOutput) {
  const KernelPhases p = plan_phases(softmax_spec(kRowCacheBytes / 4 + 1));  // one float more than the stack's budget
  EXPECT_EQ(p.cache_loop[2], 1);
  EXPECT_EQ(p.cache_output[2], 0);
  EXPECT_FALSE(p.in_loop[2][1]) << "x - max is not recomputed";
}

// x * softmax(x) over the last dim of [kRows, cols]: its storing loop reads
// x, which may be the output's memory, so exp(x - max) cannot wait there.
KernelSpec x_times_softmax_spec(std::int64_t cols) {
  SpecBuilder b({kRows, cols});
  const ArgRef x = b.input(kFloat32);
  const ArgRef m = b.op(OpId::Amax, kFloat32, {x});
  const ArgRef e = b.op(OpId::Exp, kFloat32, {b.op(OpId::Sub, kFloat32, {x, m})});
  const ArgRef s = b.op(OpId::Sum, kFloat32, {e});
  b.output(b.op(OpId::Mul, kFloat32, {b.op(OpId::Div, kFloat32, {e, s}), x}), kFloat32);
  KernelSpec spec = b.spec();
  spec.row_dims = 1;
  return spec;
}

TEST(RowKernel, AStoringLoopThatReadsTheInputKeepsExpOnTheStackWithinItsBudget) {
  const std::int64_t cols = kRowCacheBytes / 4;
  const KernelPhases fits = plan_phases(x_times_softmax_spec(cols));
  EXPECT_EQ(fits.cache_loop[2], 1);
  EXPECT_EQ(fits.cache_output[2], -1) << "on the stack";
  const KernelPhases past = plan_phases(x_times_softmax_spec(cols + 1));
  EXPECT_EQ(past.cache_loop[2], -1);
  EXPECT_TRUE(past.in_loop[2][1] && past.in_loop[2][2] && !past.reload[2][2]) << "exp (x - max) is recomputed";
}

// Softmax of row r of `x` (kCols columns), in double.
std::vector<double> softmax_row(const std::vector<float>& x, std::int64_t r) {
  double max = -INFINITY, sum = 0;
  for (std::int64_t j = 0; j < kCols; ++j) max = std::max(max, double(x[r * kCols + j]));
  std::vector<double> e(kCols);
  for (std::int64_t j = 0; j < kCols; ++j) sum += e[j] = std::exp(double(x[r * kCols + j]) - max);
  for (double& v : e) v /= sum;
  return e;
}

// Softmax in place (the output is the input's memory, as when a dying
// input lends its buffer): exp waits in the output's row, which no later
// loop reads as x.
TEST(RowKernel, SoftmaxInPlaceAtBothLevels) {
  const KernelSpec spec = softmax_spec();
  const std::vector<float> x = sample_rows();
  for (int level : {1, 3}) {
    const CompiledKernel kernel = OrcSession::instance().compile(spec, {level});  // holds the code
    std::vector<float> y = x, m(kRows, -7);
    void* ptrs[] = {y.data(), y.data(), m.data()};
    kernel.fn(0, kRows, ptrs, nullptr);
    for (std::int64_t r = 0; r < kRows; ++r) {
      const std::vector<double> want = softmax_row(x, r);
      for (std::int64_t j = 0; j < kCols; ++j) EXPECT_NEAR(y[r * kCols + j], want[j], 1e-6) << r << ", " << j;
    }
  }
}

TEST(RowKernel, InputTimesSoftmaxInPlaceAtBothLevels) {
  const KernelSpec spec = x_times_softmax_spec(kCols);
  const std::vector<float> x = sample_rows();
  for (int level : {1, 3}) {
    const CompiledKernel kernel = OrcSession::instance().compile(spec, {level});  // holds the code
    std::vector<float> y = x;
    void* ptrs[] = {y.data(), y.data()};
    kernel.fn(0, kRows, ptrs, nullptr);
    for (std::int64_t r = 0; r < kRows; ++r) {
      const std::vector<double> want = softmax_row(x, r);
      for (std::int64_t j = 0; j < kCols; ++j)
        EXPECT_NEAR(y[r * kCols + j], want[j] * x[r * kCols + j], 1e-5) << r << ", " << j;
    }
  }
}

TEST(RowKernel, SoftmaxOverRowRangesAtBothLevels) {
  const KernelSpec spec = softmax_spec();
  const std::vector<float> x = sample_rows();
  for (int level : {1, 3}) {
    const CompiledKernel kernel = OrcSession::instance().compile(spec, {level});  // holds the code
    const CompiledFn fn = kernel.fn;
    ASSERT_NE(fn, nullptr);
    std::vector<float> y(x.size(), -7), m(kRows, -7);
    void* ptrs[] = {const_cast<float*>(x.data()), y.data(), m.data()};
    fn(0, 2, ptrs, nullptr);  // rows [0, 2) and [2, kRows), as two threads would
    fn(2, kRows, ptrs, nullptr);
    for (std::int64_t r = 0; r < kRows; ++r) {
      EXPECT_EQ(m[r], *std::max_element(x.begin() + r * kCols, x.begin() + (r + 1) * kCols)) << "row " << r;
      const std::vector<double> want = softmax_row(x, r);
      for (std::int64_t j = 0; j < kCols; ++j) EXPECT_NEAR(y[r * kCols + j], want[j], 1e-6) << r << ", " << j;
    }
  }
}

TEST(PartialKernel, AccumulatorsOfEachRangeCombineInOrder) {
  constexpr std::int64_t n = 1000;
  SpecBuilder b({n});
  const ArgRef x = b.input(kFloat32);
  const ArgRef sq = b.op(OpId::Mul, kFloat32, {x, x});
  b.output(b.op(OpId::Sum, kFloat32, {sq}), kFloat32, {0});
  b.output(b.op(OpId::Argmax, kFloat32, {x}), kInt64, {0});
  KernelSpec spec = b.spec();
  spec.instrs.back().out_dtype = kInt64;
  ASSERT_TRUE(spec.is_partial());
  std::vector<float> v(n);
  for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 37) % 101) * 0.5f;  // max 50 first at i = 30
  const CompiledKernel kernel = OrcSession::instance().compile(spec, {1});  // holds the code
  const CompiledFn fn = kernel.fn;
  const std::int64_t cuts[] = {0, 29, 31, 640, n};
  PartialSlot sums[4], args[4];
  for (int c = 0; c < 4; ++c) {
    void* ptrs[] = {v.data(), &sums[c], &args[c]};
    fn(cuts[c], cuts[c + 1], ptrs, nullptr);
  }
  float total = 0;
  std::int64_t position = -1;
  combine_partials(spec.instrs[1], sums, 1, 4, &total, kFloat32);
  combine_partials(spec.instrs[2], args, 1, 4, &position, kInt64);
  double want = 0;
  for (float e : v) want += double(e) * e;
  EXPECT_EQ(total, static_cast<float>(want));
  EXPECT_EQ(position, 30);
}

TEST(RowKernel, MalformedFormsAreRejected) {
  auto rejected = [](const KernelSpec& spec) {
    try {
      OrcSession::instance().compile(spec, {1});
    } catch (const InternalError& e) {
      return std::string(e.what()).find("[jit]") != std::string::npos;
    }
    return false;
  };
  KernelSpec s = softmax_spec();
  s.row_dims = 2;
  EXPECT_TRUE(rejected(s)) << "no reduced dim left";
  s = softmax_spec();
  s.outputs[0].mem.strides[1] = 0;
  EXPECT_TRUE(rejected(s)) << "a row-level output of a value that varies along the row";
  s = softmax_spec();
  s.row_dims = 0;
  EXPECT_TRUE(rejected(s)) << "a partial kernel whose reductions are read";
  SpecBuilder b({8});
  b.output(b.op(OpId::Neg, kFloat32, {b.input(kFloat32)}), kFloat32);
  KernelSpec elementwise = b.spec();
  elementwise.row_dims = 1;
  EXPECT_TRUE(rejected(elementwise)) << "rows without a reduction";
  EXPECT_NE(softmax_spec().key(), s.key()) << "row_dims is part of the key";
}

}  // namespace
}  // namespace kiln::jit::codegen_test

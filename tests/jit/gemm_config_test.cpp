// Every choice the GEMM tuner can make gives the same product: configs
// spread over the tuner's space (and a few below the register tile) for
// several shapes and layouts, against a plain triple loop on values whose
// sums are exact in any order, with an epilogue that must see every
// element of C exactly once.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "jit/kernels/gemm.h"
#include "jit/kernels/gemm_blocking.h"
#include "tests/jit/epilogue_coverage.h"
#include "jit/kernels/gemm_few_rows.h"
#include "jit/threads.h"
#include "jit/tuning/gemm_tuning.h"

namespace {

using namespace kiln::jit::kernels;
using kiln::jit::tuning::from_config;
using kiln::jit::tuning::gemm_space;

using kgemm::Coverage;

template <class T>
struct Product {
  GemmShape shape;
  std::vector<T> a, b, want;
  MatrixRef<const T> ar, br;

  explicit Product(GemmShape s) : shape(s), a(s.m * s.k), b(s.k * s.n), want(s.m * s.n) {
    std::mt19937 rng(static_cast<unsigned>(s.m * 7919 + s.n * 131 + s.k));
    std::uniform_int_distribution<int> quarter(-8, 8);  // multiples of 1/4: exact sums
    for (T& x : a) x = T(quarter(rng)) / 4;
    for (T& x : b) x = T(quarter(rng)) / 4;
    ar = s.a_rows_contiguous ? MatrixRef<const T>{a.data(), s.k, 1} : MatrixRef<const T>{a.data(), 1, s.m};
    br = s.b_rows_contiguous ? MatrixRef<const T>{b.data(), s.n, 1} : MatrixRef<const T>{b.data(), 1, s.k};
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j) {
        double sum = 0;
        for (std::int64_t kk = 0; kk < s.k; ++kk) sum += double(ar.at(i, kk)) * double(br.at(kk, j));
        want[i * s.n + j] = T(sum);
      }
  }

  void check(const GemmConfig& config) const {
    std::vector<T> c(want.size(), T(-7));
    Coverage cov(shape.m, shape.n);
    const GemmEpilogue epilogue = cov.epilogue();
    gemm(shape.m, shape.n, shape.k, ar, br, MatrixRef<T>{c.data(), shape.n, 1}, config, &epilogue);
    const std::string what = "kc=" + std::to_string(config.kc) + " nc=" + std::to_string(config.nc) +
                             " mc=" + std::to_string(config.mc) + " tasks=" + std::to_string(config.tasks_per_thread) +
                             " few_rows=" + std::to_string(config.few_rows) +
                             " shared_b=" + std::to_string(config.shared_b);
    for (std::size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(c[i], want[i]) << what << ", element " << i;
      ASSERT_EQ(cov.seen[i], 1) << what << ": the epilogue saw element " << i << " " << cov.seen[i] << " times";
    }
  }
};

template <class T>
void sweep(const GemmShape& shape) {
  SCOPED_TRACE("m=" + std::to_string(shape.m) + " n=" + std::to_string(shape.n) + " k=" + std::to_string(shape.k));
  const Product<T> p(shape);
  const kiln::autotune::ConfigSpace space = gemm_space(shape);
  const std::uint64_t step = space.size() / 40 + 1;  // about 40 configs, spread over every knob
  for (std::uint64_t i = 0; i < space.size(); i += step) p.check(from_config(space.at(i)));
  p.check(from_config(space.at(space.size() - 1)));
  p.check(default_gemm_config(shape));
  // Blocks smaller than the register tile, and uneven splits.
  for (bool shared_b : {false, true})
    for (int tasks : {1, 3, 8}) p.check({7, 16, 5, tasks, false, shared_b});
}

TEST(GemmConfig, EveryTunableChoiceGivesTheExactProduct) {
  const int threads_before = kiln::jit::num_threads();
  for (int threads : {1, 2}) {
    kiln::jit::set_num_threads(threads);
    for (bool a_rows : {true, false})
      for (bool b_rows : {true, false}) {
        sweep<float>({4, a_rows, b_rows, 70, 130, 300});
        sweep<float>({4, a_rows, b_rows, 13, 200, 96});
        sweep<double>({8, a_rows, b_rows, 50, 90, 210});
      }
  }
  kiln::jit::set_num_threads(threads_before);
}

TEST(GemmConfig, HeuristicGivesEachThreadAColumnBlockWhereBlocksAreFew) {
  const GemmBlocking isa = gemm_blocking<float>(kAvx2Tile);  // 16 columns a panel
  const GemmConfig heuristic{};
  // At depth 512 the heuristic's B block is 192 columns: 3 blocks of 512.
  EXPECT_EQ(blocking_for(heuristic, isa, 512, 512, 1).nc, 192);
  EXPECT_EQ(blocking_for(heuristic, isa, 512, 512, 2).nc, 256) << "3 blocks for 2 threads";
  EXPECT_EQ(blocking_for(heuristic, isa, 512, 1024, 2).nc, 192) << "6 blocks: 3 a thread";
  EXPECT_EQ(blocking_for(heuristic, isa, 512, 384, 2).nc, 192) << "2 blocks: one a thread";
  EXPECT_EQ(blocking_for(heuristic, isa, 512, 160, 2).nc, 80) << "1 block: as many as threads";
  EXPECT_EQ(blocking_for(heuristic, isa, 512, 24, 2).nc, 192) << "less than a panel a thread: split by rows";
  EXPECT_EQ(blocking_for(heuristic, isa, 512, 520, 2).nc, 272) << "rounded up to whole panels";
  GemmConfig chosen{};
  chosen.nc = 192;
  EXPECT_EQ(blocking_for(chosen, isa, 512, 512, 2).nc, 192) << "a config's own nc is kept";
  // The product with those blocks, on 2 threads.
  const int threads_before = kiln::jit::num_threads();
  kiln::jit::set_num_threads(2);
  const GemmShape shape{4, true, true, 40, 512, 512};
  Product<float>(shape).check(default_gemm_config(shape));
  kiln::jit::set_num_threads(threads_before);
}

TEST(GemmConfig, ThreadsSplitTheDepthOnlyWhereCHasFewerColumnBlocksThanThreads) {
  const GemmBlocking isa = gemm_blocking<float>(kAvx2Tile);
  const GemmConfig heuristic{};
  // A convolution's weight gradient: C 32x144 over 6272 positions, in
  // depth blocks of 484 and one column block.
  const GemmBlocking serial = blocking_for(heuristic, isa, 6272, 144, 1);
  EXPECT_TRUE(splits_depth(serial, 144, 6272, 2));
  EXPECT_FALSE(splits_depth(serial, 144, 6272, 1)) << "one thread";
  EXPECT_FALSE(splits_depth(serial, 144, serial.kc, 2)) << "one depth block";
  EXPECT_TRUE(splits_depth(serial, 144, 2 * serial.kc, 2)) << "a depth block a thread";
  const GemmBlocking wide = blocking_for(heuristic, isa, 6272, 1024, 1);
  EXPECT_FALSE(splits_depth(wide, 1024, 6272, 2)) << "column blocks for every thread";
}

TEST(GemmConfig, ADepthSplitOverThreadsGivesTheExactProductAndOneEpilogue) {
  const int threads_before = kiln::jit::num_threads();
  kiln::jit::set_num_threads(2);
  for (bool b_rows : {true, false})
    for (const GemmShape& shape :
         {GemmShape{4, true, b_rows, 32, 144, 6272}, GemmShape{4, false, b_rows, 7, 30, 2000}}) {
      SCOPED_TRACE("m=" + std::to_string(shape.m) + " n=" + std::to_string(shape.n) + " k=" + std::to_string(shape.k));
      const Product<float> p(shape);
      p.check(default_gemm_config(shape));
      p.check({100, 0, 0, 2, false, true});  // depth blocks of 100: uneven parts
    }
  Product<double>({8, true, true, 20, 40, 3000}).check(default_gemm_config({8, true, true, 20, 40, 3000}));
  kiln::jit::set_num_threads(threads_before);
}

TEST(GemmConfig, HeuristicTakesTheFewRowsPathOnlyForAHandfulOfRows) {
  EXPECT_TRUE(default_gemm_config({4, true, false, kFewRows, 512, 512}).few_rows);
  EXPECT_FALSE(default_gemm_config({4, true, false, kFewRows + 1, 512, 512}).few_rows);
  // The tuner offers the choice up to kFewRowsTunable rows, and not past it.
  auto offers_few_rows = [](std::int64_t m) {
    const kiln::autotune::ConfigSpace space = gemm_space({4, true, false, m, 512, 512});
    for (const kiln::autotune::Knob& knob : space.knobs())
      if (knob.name == "few_rows") return true;
    return false;
  };
  EXPECT_TRUE(offers_few_rows(kFewRowsTunable));
  EXPECT_FALSE(offers_few_rows(kFewRowsTunable + 1));
}

TEST(GemmConfig, HeuristicTakesTheUnpackedPathForAFewColumnsOfDotProducts) {
  // x · Wᵀ (A's rows, B's columns contiguous): dots of contiguous rows.
  EXPECT_TRUE(default_gemm_config({4, true, false, 4096, kFewColumns, 512}).few_rows);
  EXPECT_FALSE(default_gemm_config({4, true, false, 4096, kFewColumns + 1, 512}).few_rows);
  // Other layouts would read B or C across rows: the packed GEMM.
  EXPECT_FALSE(default_gemm_config({4, true, true, 4096, 10, 512}).few_rows);
  EXPECT_FALSE(default_gemm_config({4, false, false, 4096, 10, 512}).few_rows);
  auto offers_few_rows = [](std::int64_t n, bool b_rows_contiguous) {
    const kiln::autotune::ConfigSpace space = gemm_space({4, true, b_rows_contiguous, 4096, n, 512});
    for (const kiln::autotune::Knob& knob : space.knobs())
      if (knob.name == "few_rows") return true;
    return false;
  };
  EXPECT_TRUE(offers_few_rows(kFewColumnsTunable, false));
  EXPECT_FALSE(offers_few_rows(kFewColumnsTunable + 1, false));
  EXPECT_FALSE(offers_few_rows(10, true));
}

}  // namespace

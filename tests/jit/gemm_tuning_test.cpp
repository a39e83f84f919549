// The GEMM tuner end to end on a private database: a tuning run stores a
// winner that gemm() then uses; a hand-written entry is used as written
// and still gives the exact product; an entry outside the tuner's space is
// ignored; products worth tuning are counted by key for the stats;
// kiln::tune's targets reject bad text with ValueError naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <kiln/error.h>
#include <kiln/tune.h>

#include "jit/kernels/gemm.h"
#include "jit/kernels/parallel.h"
#include "jit/tuning/gemm_tuning.h"
#include "jit/tuning/tuning_store.h"
#include "jit/threads.h"
#include "profiler/counters.h"

namespace {

namespace fs = std::filesystem;
using namespace kiln::jit::kernels;
using namespace kiln::jit::tuning;

class GemmTuning : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("kiln-gemm-tuning-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    set_tuning_db_file(dir_ / "tuning.json");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// gemm() through its own lookup (no explicit config), exact on quarter values.
void expect_exact_product(const GemmShape& s) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> quarter(-8, 8);
  std::vector<float> a(s.m * s.k), b(s.k * s.n), c(s.m * s.n);
  for (float& x : a) x = float(quarter(rng)) / 4;
  for (float& x : b) x = float(quarter(rng)) / 4;
  MatrixRef<const float> br = s.b_rows_contiguous ? MatrixRef<const float>{b.data(), s.n, 1}
                                                  : MatrixRef<const float>{b.data(), 1, s.k};
  gemm(s.m, s.n, s.k, MatrixRef<const float>{a.data(), s.k, 1}, br, MatrixRef<float>{c.data(), s.n, 1});
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      double want = 0;
      for (std::int64_t kk = 0; kk < s.k; ++kk) want += double(a[i * s.k + kk]) * double(br.at(kk, j));
      ASSERT_EQ(c[i * s.n + j], float(want)) << "C(" << i << ", " << j << ")";
    }
}

// Inside a piece of a parallel loop (a batch split by matrix) a product
// runs on that piece's thread, so it is tuned and looked up as one
// thread's.
TEST_F(GemmTuning, AProductInsideAParallelLoopIsKeyedAsOneThreads) {
  const int threads_before = kiln::jit::num_threads();
  kiln::jit::set_num_threads(2);
  const GemmShape shape{4, true, true, 32, 196, 144};
  const std::string outside = gemm_key(shape);
  std::vector<std::string> inside(2);
  parallel_ranges(2, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) inside[i] = gemm_key(shape);
  });
  kiln::jit::set_num_threads(threads_before);
  EXPECT_NE(outside.find("/t2/"), std::string::npos) << outside;
  for (const std::string& key : inside) EXPECT_NE(key.find("/t1/"), std::string::npos) << key;
}

TEST_F(GemmTuning, ARunStoresItsWinnerAndGemmUsesIt) {
  const GemmShape shape{4, true, false, 40, 96, 200};
  ASSERT_FALSE(tuned_gemm_config(shape, gemm_key(shape)));
  kiln::autotune::SearchOptions options;
  options.budget_seconds = 5;
  options.samples = 12;
  int progress_calls = 0;
  options.on_progress = [&](const kiln::autotune::SearchProgress&) { ++progress_calls; };
  const GemmTuneResult r = tune_gemm(shape, options);
  EXPECT_TRUE(r.stored);
  EXPECT_GT(progress_calls, 0);
  EXPECT_GT(r.search.evaluated, 0u);
  EXPECT_GT(r.best_seconds, 0);
  EXPECT_LE(r.best_seconds, r.heuristic_seconds);  // the heuristic wins ties
  EXPECT_EQ(r.key, gemm_key(shape));
  const std::optional<TunedGemm> used = tuned_gemm_config(shape, gemm_key(shape));
  ASSERT_TRUE(used);
  EXPECT_EQ(used->config, from_config(r.best_point));
  EXPECT_STREQ(used->source, "database");
  expect_exact_product(shape);
}

TEST_F(GemmTuning, AHandWrittenEntryIsUsedAndAConfigOutsideTheSpaceIgnored) {
  const GemmShape shape{4, true, true, 100, 144, 260};
  kiln::autotune::Config config = {{"kc", 128}, {"nc", 64}, {"mc", 48}, {"shared_b", 1}};
  const kiln::autotune::ConfigSpace space = gemm_space(shape);
  for (const kiln::autotune::Knob& knob : space.knobs())
    if (!config.count(knob.name)) config[knob.name] = knob.values.front();
  ASSERT_TRUE(space.contains(config));
  tuning_db()->store(gemm_key(shape), {config, 1e-3, 2e-3, 1.0, 1, 0});
  bump_tuning_generation();
  const std::optional<TunedGemm> used = tuned_gemm_config(shape, gemm_key(shape));
  ASSERT_TRUE(used);
  EXPECT_EQ(used->config.kc, 128);
  EXPECT_EQ(used->config.mc, 48);
  EXPECT_TRUE(used->config.shared_b);
  expect_exact_product(shape);

  config["kc"] = 100;  // not a value the tuner offers: a stale or hand-broken entry
  tuning_db()->store(gemm_key(shape), {config, 1e-3, 2e-3, 1.0, 1, 0});
  bump_tuning_generation();
  EXPECT_FALSE(tuned_gemm_config(shape, gemm_key(shape)));
  expect_exact_product(shape);
}

// The row of `key` in the profiler's tunables, if any.
std::optional<kiln::TunableStats> tunable(const std::string& key) {
  for (const kiln::TunableStats& t : kiln::profiler::snapshot().tunables)
    if (t.key == key) return t;
  return std::nullopt;
}

TEST_F(GemmTuning, ProductsWorthTuningAreCountedByKeyWithTheirKilnTuneTarget) {
  kiln::profiler::reset();
  const GemmShape linear{4, true, false, 64, 96, 128}, small{4, true, true, 8, 8, 8}, tn{4, false, true, 70, 90, 50};
  for (int i = 0; i < 3; ++i) expect_exact_product(linear);
  expect_exact_product(small);
  std::optional<kiln::TunableStats> row = tunable(gemm_key(linear));
  ASSERT_TRUE(row);
  EXPECT_EQ(row->target, "linear 64x128x96");  // m x k x n, as kiln tune reads it
  EXPECT_EQ(row->calls, 3u);
  EXPECT_GT(row->total_ms, 0);
  EXPECT_EQ(row->threads, static_cast<std::uint32_t>(kiln::jit::num_threads()));
  EXPECT_STREQ(row->config, "heuristic");
  EXPECT_FALSE(tunable(gemm_key(small))) << "8x8x8 is below the work worth tuning";
  EXPECT_EQ(gemm_target(tn), "matmul_tn 70x50x90");
  EXPECT_EQ(gemm_target({4, false, false, 70, 90, 50}), "") << "no kiln tune kernel reads both transposed";
  EXPECT_EQ(gemm_target({8, true, true, 70, 90, 50}), "") << "kiln tune's kernels are float32";

  // Tuned: the next calls say where their config came from.
  kiln::autotune::SearchOptions options;
  options.budget_seconds = 2;
  options.samples = 4;
  ASSERT_TRUE(tune_gemm(linear, options).stored);
  expect_exact_product(linear);
  row = tunable(gemm_key(linear));
  ASSERT_TRUE(row);
  EXPECT_EQ(row->calls, 4u) << "the tuner's own timing runs are not counted";
  EXPECT_STREQ(row->config, "database");

  kiln::profiler::reset();
  EXPECT_FALSE(tunable(gemm_key(linear))) << "a reset zeroes the counts";
}

TEST_F(GemmTuning, ProductsOfOneBucketShareAKeyAndASpace) {
  const GemmShape a{4, true, true, 100, 200, 300}, b{4, true, true, 128, 256, 384};
  EXPECT_EQ(gemm_key(a), gemm_key(b));
  EXPECT_EQ(gemm_space(a).size(), gemm_space(b).size());
  EXPECT_NE(gemm_key(a), gemm_key({4, true, false, 100, 200, 300}));  // another layout
  EXPECT_NE(gemm_key(a), gemm_key({8, true, true, 100, 200, 300}));   // another type
}

TEST_F(GemmTuning, PublicApiTunesListsAndClears) {
  kiln::tune::Options options;
  options.budget_seconds = 3;
  const kiln::tune::Result r = kiln::tune::run(kiln::tune::parse_target("linear", "8x64x48"), options);
  EXPECT_TRUE(r.stored);
  EXPECT_EQ(r.target.text(), "linear 8x64x48");
  EXPECT_GT(r.tuned_ms, 0);
  EXPECT_FALSE(r.config.empty());
  const std::vector<kiln::tune::Entry> entries = kiln::tune::list();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].key, r.key);
  EXPECT_EQ(entries[0].config, r.config);
  EXPECT_EQ(kiln::tune::database_path(), (dir_ / "tuning.json").string());
  const kiln::tune::Result tn = kiln::tune::run(kiln::tune::parse_target("matmul_tn", "16x24x20"), options);
  EXPECT_EQ(tn.key.rfind("gemm/f32/tn/", 0), 0u) << tn.key;  // A read transposed, B row-major
  EXPECT_EQ(r.key.rfind("gemm/f32/nt/", 0), 0u) << r.key;    // the weight read transposed
  EXPECT_EQ(kiln::tune::clear("gemm/f64/"), 0u);
  EXPECT_EQ(kiln::tune::clear("gemm/f32/tn/"), 1u);
  EXPECT_EQ(kiln::tune::clear(), 1u);
  EXPECT_TRUE(kiln::tune::list().empty());
}

TEST_F(GemmTuning, CancelStopsTheRunAndStoresNothing) {
  std::atomic<bool> cancel{true};
  kiln::tune::Options options;
  options.cancel = &cancel;
  const kiln::tune::Result r = kiln::tune::run(kiln::tune::parse_target("matmul", "64x64x64"), options);
  EXPECT_FALSE(r.stored);
  EXPECT_FALSE(r.complete);
  EXPECT_TRUE(kiln::tune::list().empty());
}

TEST(TuneTarget, BadTextIsAValueErrorNamingIt) {
  auto message = [](const char* kernel, const char* shape) {
    try {
      kiln::tune::parse_target(kernel, shape);
    } catch (const kiln::ValueError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("conv", "1x2x3").find("unknown kernel 'conv'"), std::string::npos);
  EXPECT_NE(message("matmul", "128x512").find("3 extents"), std::string::npos);
  EXPECT_NE(message("matmul", "128x512").find("'128x512'"), std::string::npos);
  EXPECT_NE(message("matmul", "128x0x5").find("bad shape '128x0x5'"), std::string::npos);
  EXPECT_NE(message("linear", "8xx4").find("bad shape '8xx4'"), std::string::npos);
  EXPECT_NE(message("linear", "8x4x-1").find("bad shape"), std::string::npos);
  EXPECT_EQ(kiln::tune::parse_target("matmul", "128x512x256").shape, (std::vector<std::int64_t>{128, 512, 256}));
}

}  // namespace

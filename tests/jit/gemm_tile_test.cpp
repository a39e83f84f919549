// Generated GEMM micro-kernels (jit/kernels/gemm_tile.h): every tile that
// fits the registers of AVX2 (and of AVX-512 where the CPU has it) gives
// the exact product on values whose sums are exact, on edge tiles, across
// depth blocks, into a transposed C and from column-major A and B (the
// packing of every tile's panel widths); and, on values whose sums round,
// the same bits as the hand-written kernel (the same operations per
// element in the same order).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <kiln/error.h>

#include "jit/kernels/gemm.h"
#include "jit/kernels/gemm_few_rows.h"
#include "jit/kernels/gemm_tile.h"
#include "jit/threads.h"
#include "jit/tier1/compile_queue.h"
#include "jit/tier1/config.h"
#include "jit/tier1/disk_cache.h"
#include "jit/tuning/gemm_tuning.h"

namespace {

using namespace kiln::jit::kernels;

struct VariantGuard {
  explicit VariantGuard(GemmVariant v) { set_gemm_variant(v); }
  ~VariantGuard() { set_gemm_variant(GemmVariant::Best); }
};

std::vector<GemmVariant> vector_variants() {
  std::vector<GemmVariant> out;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) out.push_back(GemmVariant::Avx2);
  if (__builtin_cpu_supports("avx512f")) out.push_back(GemmVariant::Avx512);
  return out;
}

int vector_bytes(GemmVariant v) { return v == GemmVariant::Avx512 ? 64 : 32; }

// Every tile of the variant's registers with mr up to 8 and nv up to 3.
std::vector<int> tiles_of(GemmVariant v) {
  std::vector<int> out;
  for (int mr = 1; mr <= 8; ++mr)
    for (int nv = 1; nv <= 3; ++nv)
      if (tile_fits(vector_bytes(v), mr, nv)) out.push_back(tile_code(mr, nv));
  return out;
}

template <class T>
struct Product {
  std::int64_t m, n, k;
  std::vector<T> a, b;

  Product(std::int64_t m, std::int64_t n, std::int64_t k, bool exact) : m(m), n(n), k(k), a(m * k), b(k * n) {
    std::mt19937 rng(static_cast<unsigned>(m * 31 + n * 7 + k));
    std::uniform_int_distribution<int> quarter(-8, 8);  // multiples of 1/4: exact sums in any order
    std::uniform_real_distribution<double> uniform(-1, 1);
    for (T& x : a) x = exact ? T(quarter(rng)) / 4 : T(uniform(rng));
    for (T& x : b) x = exact ? T(quarter(rng)) / 4 : T(uniform(rng));
  }

  // C (m × n) row-major, or stored transposed when `transposed_c`; A and B
  // read in place, or from copies stored column-major when `transposed_ab`
  // (each packed along its other axis: A's rows of the tile's mr values
  // copied whole, B's panels transposed).
  std::vector<T> run(const GemmConfig& config, bool transposed_c = false, bool transposed_ab = false) const {
    std::vector<T> c(m * n, T(-7));
    const MatrixRef<T> cr = transposed_c ? MatrixRef<T>{c.data(), 1, m} : MatrixRef<T>{c.data(), n, 1};
    if (transposed_ab) {
      const std::vector<T> at = column_major(a, m, k), bt = column_major(b, k, n);
      gemm(m, n, k, MatrixRef<const T>{at.data(), 1, m}, MatrixRef<const T>{bt.data(), 1, k}, cr, config);
    } else {
      gemm(m, n, k, MatrixRef<const T>{a.data(), k, 1}, MatrixRef<const T>{b.data(), n, 1}, cr, config);
    }
    if (!transposed_c) return c;
    std::vector<T> rows(c.size());
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) rows[i * n + j] = c[j * m + i];
    return rows;
  }

  static std::vector<T> column_major(const std::vector<T>& rows_first, std::int64_t rows, std::int64_t cols) {
    std::vector<T> out(rows_first.size());
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) out[j * rows + i] = rows_first[i * cols + j];
    return out;
  }

  std::vector<T> reference() const {
    std::vector<T> c(m * n);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (std::int64_t kk = 0; kk < k; ++kk) sum += double(a[i * k + kk]) * double(b[kk * n + j]);
        c[i * n + j] = T(sum);
      }
    return c;
  }
};

GemmConfig with_tile(int tile, std::int64_t kc) {
  GemmConfig config;
  config.tile = tile;
  config.kc = kc;
  config.shared_b = true;
  return config;
}

template <class T>
void exact_products(GemmVariant variant) {
  const VariantGuard guard(variant);
  // 37 rows and 45 columns leave edge tiles for every mr and nr; depth 300
  // in blocks of 64 accumulates into C four times.
  const Product<T> p(37, 45, 300, true);
  const std::vector<T> want = p.reference();
  for (int tile : tiles_of(variant)) {
    SCOPED_TRACE("tile " + std::to_string(tile_mr(tile)) + "x" + std::to_string(tile_nv(tile)));
    for (bool transposed_c : {false, true})
      for (bool transposed_ab : {false, true}) {
        const std::vector<T> got = p.run(with_tile(tile, 64), transposed_c, transposed_ab);
        for (std::size_t i = 0; i < want.size(); ++i)
          ASSERT_EQ(got[i], want[i]) << "element " << i << (transposed_c ? " of a transposed C" : "")
                                     << (transposed_ab ? " of column-major A and B" : "");
      }
  }
}

TEST(GemmTile, EveryTileGivesTheExactProduct) {
  const int threads_before = kiln::jit::num_threads();
  for (int threads : {1, 2}) {
    kiln::jit::set_num_threads(threads);
    for (GemmVariant v : vector_variants()) {
      exact_products<float>(v);
      exact_products<double>(v);
    }
  }
  kiln::jit::set_num_threads(threads_before);
}

template <class T>
void same_bits_as_hand_written(GemmVariant variant) {
  const VariantGuard guard(variant);
  const Product<T> p(64, 96, 500, false);
  const std::vector<T> hand_written = p.run(with_tile(0, 128));
  for (int tile : tiles_of(variant)) {
    SCOPED_TRACE("tile " + std::to_string(tile_mr(tile)) + "x" + std::to_string(tile_nv(tile)));
    const std::vector<T> got = p.run(with_tile(tile, 128));
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], hand_written[i]) << "element " << i;
  }
}

TEST(GemmTile, EveryTileRoundsLikeTheHandWrittenKernel) {
  for (GemmVariant v : vector_variants()) {
    same_bits_as_hand_written<float>(v);
    same_bits_as_hand_written<double>(v);
  }
}

TEST(GemmTile, ATileThatDoesNotFitTheRegistersIsRejected) {
  EXPECT_TRUE(tile_fits(32, 6, 2));
  EXPECT_TRUE(tile_fits(32, 4, 3));
  EXPECT_FALSE(tile_fits(32, 7, 2));  // 14 accumulators + 2 + 1 > 16 ymm
  EXPECT_TRUE(tile_fits(64, 12, 2));
  EXPECT_FALSE(tile_fits(64, 8, 4));  // 32 + 4 + 1 > 32 zmm
  try {
    generated_gemm_tile({4, 32, 7, 2});
    FAIL() << "7x2 of ymm was compiled";
  } catch (const kiln::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("7x2"), std::string::npos) << e.what();
  }
}

TEST(GemmTile, TheTunerOffersGeneratedTilesBesideTheHandWrittenOne) {
  for (GemmVariant v : vector_variants()) {
    const VariantGuard guard(v);
    const kiln::autotune::ConfigSpace space = kiln::jit::tuning::gemm_space({4, true, false, 128, 512, 512});
    const kiln::autotune::Knob* tile = nullptr;
    for (const kiln::autotune::Knob& knob : space.knobs())
      if (knob.name == "tile") tile = &knob;
    ASSERT_NE(tile, nullptr);
    EXPECT_EQ(tile->values.front(), 0);
    for (std::size_t i = 1; i < tile->values.size(); ++i) {
      const int code = static_cast<int>(tile->values[i]);
      EXPECT_TRUE(tile_fits(vector_bytes(v), tile_mr(code), tile_nv(code))) << code;
    }
  }
  const VariantGuard baseline(GemmVariant::Baseline);
  const kiln::autotune::ConfigSpace space = kiln::jit::tuning::gemm_space({4, true, false, 128, 512, 512});
  for (const kiln::autotune::Knob& knob : space.knobs())
    EXPECT_NE(knob.name, "tile") << "the baseline variant has no generated tiles";
}

TEST(GemmTile, TheHeuristicTakesAFourRowTileWhereSixRowsWouldPadMost) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP() << "no AVX2";
  const VariantGuard guard(GemmVariant::Avx2);
  auto tile = [](std::int64_t m, int bytes = 4) { return default_gemm_config({bytes, true, false, m, 512, 512}).tile; };
  EXPECT_EQ(tile(20), tile_code(4, 2));  // 24 rows padded with 6-row panels
  EXPECT_EQ(tile(32), tile_code(4, 2));  // 36
  EXPECT_EQ(tile(24), tile_code(6, 2));  // 6 divides it: the generated 6-row tile
  EXPECT_EQ(tile(128), tile_code(6, 2)); // 132 against 128 / 0.96
  EXPECT_EQ(tile(128, 8), 0);            // float64: the hand-written one
  EXPECT_EQ(tile(kFewRows), 0);          // the few-rows path
}

TEST(GemmTile, OnAvx512TheHeuristicTakesTheTileThatPadsCLeast) {
  // A config only: nothing runs, so any CPU can check the rule.
  const VariantGuard guard(GemmVariant::Avx512);
  auto tile = [](std::int64_t m, std::int64_t n, int bytes = 4) {
    return default_gemm_config({bytes, true, false, m, n, 512}).tile;
  };
  EXPECT_EQ(tile(32, 512), tile_code(8, 3));   // 36 rows of 6 against 528 columns of 48
  EXPECT_EQ(tile(128, 512), tile_code(6, 4));  // padded alike: 8x3 is charged for its loads
  EXPECT_EQ(tile(128, 784), tile_code(8, 3));  // 132 x 832 against 128 x 816
  EXPECT_EQ(tile(128, 10), tile_code(8, 3));   // a 10-column head: 64 columns against 48
  EXPECT_EQ(tile(48, 512), tile_code(6, 4));   // both divide the rows
  EXPECT_EQ(tile(128, 784, 8), 0);             // float64: the hand-written one
  EXPECT_EQ(tile(kFewRows, 512), 0);           // the few-rows path
}

TEST(GemmTile, ADefaultTileIsCompiledInTheBackgroundOnceItWouldHavePaidForItself) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP() << "no AVX2";
  if (kiln::jit::hot_threshold_is_explicit()) GTEST_SKIP() << "KILN_HOT_THRESHOLD set: no break-even test";
  const bool was_enabled = kiln::jit::enabled(), was_sync = kiln::jit::compile_sync();
  const std::string cache_dir = kiln::jit::disk_cache_dir();
  kiln::jit::set_disk_cache_dir("");  // a tile on disk would be loaded at once
  kiln::jit::set_compile_sync(false);
  constexpr std::int64_t kSecond = 1'000'000'000;
  // Tiles no other test asks for (tiles_of stops at 3 vectors): double 1x4 and 2x4 of ymm.
  const GemmTileSpec off{8, 32, 1, 4}, on{8, 32, 2, 4};
  kiln::jit::set_enabled(false);
  ran_without_tile(off, 10 * kSecond);
  EXPECT_EQ(ready_gemm_tile(off), nullptr);
  kiln::jit::wait_for_compile_queue();
  EXPECT_EQ(ready_gemm_tile(off), nullptr) << "compiled with the JIT off";
  kiln::jit::set_enabled(true);
  EXPECT_EQ(ready_gemm_tile(on), nullptr);
  ran_without_tile(on, kSecond / 10);
  kiln::jit::wait_for_compile_queue();
  EXPECT_EQ(ready_gemm_tile(on), nullptr) << "compiled after 0.1 s of products";
  ran_without_tile(on, 2 * kSecond);
  GemmMicroFn fn = ready_gemm_tile(on);
  if (!fn) {
    kiln::jit::wait_for_compile_queue();
    fn = ready_gemm_tile(on);
  }
  EXPECT_NE(fn, nullptr) << "not compiled after 2.1 s of products";
  EXPECT_EQ(fn, generated_gemm_tile(on)) << "compiled twice";
  kiln::jit::set_enabled(was_enabled);
  kiln::jit::set_compile_sync(was_sync);
  kiln::jit::set_disk_cache_dir(cache_dir);
}

}  // namespace

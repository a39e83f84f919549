// Online tuning (KILN_AUTOTUNE=online): a hot matmul is tuned in the
// background arena while two user threads keep running it; every product,
// before, during and after the tuned config takes over, must be exact
// (values whose sums are exact in any order), and the swap must show in
// the stats and the event log.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <thread>
#include <vector>

#include <unistd.h>

#include <kiln/kiln.h>

#include "jit/tuning/gemm_tuning.h"
#include "jit/tuning/tuning_store.h"

namespace {

namespace fs = std::filesystem;
using kiln::jit::tuning::AutotuneMode;

TEST(OnlineTuning, AHotMatmulIsTunedWhileItsThreadsRunItAndEveryResultIsExact) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("kiln-online-tuning-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  kiln::jit::tuning::set_tuning_db_file(dir / "tuning.json");
  kiln::jit::tuning::set_autotune_mode(AutotuneMode::Online);
  kiln::jit::set_compile_sync(false);

  constexpr std::int64_t m = 96, k = 160, n = 128;  // above the online threshold of work
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> quarter(-8, 8);
  std::vector<float> a(m * k), b(k * n), want(m * n);
  for (float& x : a) x = float(quarter(rng)) / 4;
  for (float& x : b) x = float(quarter(rng)) / 4;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t kk = 0; kk < k; ++kk) s += double(a[i * k + kk]) * double(b[kk * n + j]);
      want[i * n + j] = float(s);
    }
  const std::uint64_t tuned_before = kiln::stats().jit.tunes_done;
  const kiln::jit::kernels::GemmShape shape{4, true, true, m, n, k};
  ASSERT_FALSE(kiln::jit::tuning::tuned_gemm_config(shape, kiln::jit::tuning::gemm_key(shape)));

  std::vector<int> wrong(2, 0);
  std::vector<std::thread> users;
  for (int t = 0; t < 2; ++t)
    users.emplace_back([&, t] {
      const kiln::Tensor x = kiln::from_blob(a.data(), {m, k}).clone();
      const kiln::Tensor w = kiln::from_blob(b.data(), {k, n}).clone();
      for (int iter = 0; iter < 150; ++iter)
        if (kiln::matmul(x, w).to_vector<float>() != want) ++wrong[t];
    });
  for (std::thread& u : users) u.join();
  kiln::jit::wait_for_compiles();
  EXPECT_EQ(wrong[0], 0);
  EXPECT_EQ(wrong[1], 0);

  EXPECT_EQ(kiln::stats().jit.tunes_done, tuned_before + 1) << "the key is tuned once, not once per thread";
  const auto tuned = kiln::jit::tuning::tuned_gemm_config(shape, kiln::jit::tuning::gemm_key(shape));
  ASSERT_TRUE(tuned) << "the winner is in use after the tuning";
  EXPECT_STREQ(tuned->source, "online");
  EXPECT_EQ(kiln::stats().jit.tunes_in_flight, 0u);
  bool logged = false;
  for (const kiln::EventStats& e : kiln::stats().recent_events)
    logged |= std::string(e.kind) == "tuned" && e.detail.find(kiln::jit::tuning::gemm_key(shape)) == 0;
  EXPECT_TRUE(logged) << "no 'tuned' event naming the key";
  // After the swap the product is still exact.
  const kiln::Tensor x = kiln::from_blob(a.data(), {m, k}).clone();
  const kiln::Tensor w = kiln::from_blob(b.data(), {k, n}).clone();
  EXPECT_EQ(kiln::matmul(x, w).to_vector<float>(), want);

  kiln::jit::tuning::set_autotune_mode(AutotuneMode::Database);
  fs::remove_all(dir);
}

}  // namespace

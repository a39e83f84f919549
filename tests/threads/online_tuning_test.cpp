// Online tuning (KILN_AUTOTUNE=online): a hot matmul, and a hot compiled
// softmax, are tuned in the background arena while two user threads keep
// running them; every result, before, during and after the tuned config
// or code takes over, must be right (a product exact on values whose sums
// are exact in any order; a softmax within float rounding), and the swap
// must show in the stats and the event log.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <kiln/kiln.h>

#include "jit/tuning/background_tuning.h"
#include "jit/tuning/gemm_tuning.h"
#include "jit/tuning/kernel_targets.h"
#include "jit/tuning/kernel_tuning.h"
#include "jit/tuning/tuning_store.h"
#include "tests/common/tuning_helpers.h"

namespace {

using kiln::jit::tuning::AutotuneMode;

// A private database, online tuning on, compiles in the background.
class OnlineTuning : public tuning_test::PrivateTuningDb {
 protected:
  void SetUp() override {
    PrivateTuningDb::SetUp();
    kiln::jit::tuning::set_autotune_mode(AutotuneMode::Online);
    kiln::jit::set_compile_sync(false);
  }
};

// Whether the event log has a `tuned` event whose detail starts with `key`.
bool tuned_event_for(const std::string& key) {
  for (const kiln::EventStats& e : kiln::stats().recent_events)
    if (std::string(e.kind) == "tuned" && e.detail.find(key) == 0) return true;
  return false;
}

TEST_F(OnlineTuning, AHotMatmulIsTunedWhileItsThreadsRunItAndEveryResultIsExact) {

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
  EXPECT_TRUE(tuned_event_for(kiln::jit::tuning::gemm_key(shape))) << "no 'tuned' event naming the key";
  // After the swap the product is still exact.
  const kiln::Tensor x = kiln::from_blob(a.data(), {m, k}).clone();
  const kiln::Tensor w = kiln::from_blob(b.data(), {k, n}).clone();
  EXPECT_EQ(kiln::matmul(x, w).to_vector<float>(), want);
}

TEST_F(OnlineTuning, AHotSoftmaxIsTunedWhileItsThreadsRunItAndEveryResultIsRight) {
  constexpr std::int64_t rows = 256, cols = 1024;  // 2^18 elements: a tunable kernel
  const std::int64_t shape[] = {rows, cols};
  const std::string key = kiln::jit::tuning::kernel_key(kiln::jit::tuning::fused_kernel_spec("softmax", shape));
  std::vector<float> x(rows * cols);
  std::vector<double> want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.5f + float(i % 89) / 89;
  for (std::int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (std::int64_t c = 0; c < cols; ++c) sum += std::exp(double(x[r * cols + c]));
    for (std::int64_t c = 0; c < cols; ++c) want[r * cols + c] = std::exp(double(x[r * cols + c])) / sum;
  }
  const double budget = kiln::jit::tuning::online_budget_seconds();
  kiln::jit::tuning::set_online_budget_seconds(0.3);
  const std::int64_t threshold = kiln::jit::hot_threshold();
  kiln::jit::set_hot_threshold(2);
  const std::uint64_t tuned_before = kiln::stats().jit.tunes_done;

  // Each thread runs until the tuning is done, then 20 runs more (on the tuned code, if it won).
  std::vector<int> wrong(2, 0);
  std::vector<std::thread> users;
  for (int t = 0; t < 2; ++t)
    users.emplace_back([&, t] {
      const kiln::Tensor in = kiln::from_blob(x.data(), {rows, cols}).clone();
      int after = 0;
      for (int iter = 0; iter < 5000 && after < 20; ++iter) {
        const std::vector<float> got = in.softmax(1).to_vector<float>();
        for (std::size_t i = 0; i < got.size(); ++i)
          if (!(std::fabs(got[i] - want[i]) <= 1e-5 * want[i])) {
            ++wrong[t];
            break;
          }
        if (kiln::stats().jit.tunes_done > tuned_before) ++after;
      }
    });
  for (std::thread& u : users) u.join();
  kiln::jit::wait_for_compiles();
  kiln::jit::set_hot_threshold(threshold);
  kiln::jit::tuning::set_online_budget_seconds(budget);
  EXPECT_EQ(wrong[0], 0);
  EXPECT_EQ(wrong[1], 0);
  EXPECT_EQ(kiln::stats().jit.tunes_done, tuned_before + 1) << "the key is tuned once, not once per thread";
  EXPECT_EQ(kiln::stats().jit.tunes_in_flight, 0u);
  EXPECT_TRUE(tuned_event_for(key)) << "no 'tuned' event naming " << key;
}

// A tuning that throws (its buffers refused under a memory budget, a
// failed compile) runs on the compile thread, where nothing would catch
// it: it is recorded as a failure and the program goes on.
TEST_F(OnlineTuning, ATuningThatThrowsIsRecordedAndTheProgramGoesOn) {
  kiln::jit::tuning::tune_in_background([] { throw kiln::ValueError("no room to tune"); });
  kiln::jit::wait_for_compiles();
  bool recorded = false;
  for (const std::string& f : kiln::stats().jit.recent_failures) recorded |= f == "online tuning: no room to tune";
  EXPECT_TRUE(recorded);
  EXPECT_EQ(kiln::stats().jit.tunes_in_flight, 0u);
}

}  // namespace

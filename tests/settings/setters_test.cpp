// The public setters of <kiln/settings.h>: each sets its knob, rejects a bad
// value with kiln::ValueError naming it, and replaces a bad variable.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>

#include <kiln/kiln.h>

#include "profiler/settings/settings.h"

namespace kiln {
namespace {

// `f` throws ValueError whose message contains `needle`.
template <class F>
void expect_value_error(F f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no ValueError (expected one naming " << needle << ")";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(SettingsSetters, RejectBadValuesNamingThem) {
  expect_value_error([] { set_trace_limit(0); }, "got 0");
  expect_value_error([] { set_num_threads(-2); }, "got -2");
  expect_value_error([] { jit::set_hot_threshold(0); }, "got 0");
  expect_value_error([] { jit::set_compile_timeout(std::chrono::milliseconds(-1)); }, "got -1");
  expect_value_error([] { jit::set_compile_cold_after(std::chrono::milliseconds(0)); }, "got 0");
  expect_value_error([] { jit::set_max_keys(7); }, "got 7");
  expect_value_error([] { jit::set_max_kernels(3); }, "got 3");
  expect_value_error([] { set_autotune_budget(0); }, "got 0");
  expect_value_error([] { set_dump("ir,llvm"); }, "KILN_DUMP='ir,llvm'");
  expect_value_error([] { set_cache_dir("/tmp/a\nb"); }, "KILN_CACHE_DIR='/tmp/a\nb'");
  expect_value_error([] { set_trace_events_path("/nonexistent-kiln-dir/trace.json"); },
                     "'/nonexistent-kiln-dir/trace.json'");
  expect_value_error([] { set_stats_path("/tmp/stats\t.json"); }, "KILN_STATS='/tmp/stats\t.json'");
}

TEST(SettingsSetters, SetAndGetEachKnob) {
  const std::uint64_t max_bytes = cache_max_bytes();
  set_cache_max_bytes(std::uint64_t{1} << 30);
  EXPECT_EQ(cache_max_bytes(), std::uint64_t{1} << 30);
  set_cache_max_bytes(max_bytes);

  const std::string dir = cache_dir();
  set_cache_dir("off");
  EXPECT_EQ(cache_dir(), "");
  set_cache_dir("/tmp/kiln-settings-test-cache");
  EXPECT_EQ(cache_dir(), "/tmp/kiln-settings-test-cache");
  set_cache_dir(dir.empty() ? "off" : dir);

  set_profiling(false);
  EXPECT_FALSE(profiling());
  set_profiling(true);
  EXPECT_TRUE(profiling());

  const AutotuneMode mode = autotune_mode();
  set_autotune_mode(AutotuneMode::Off);
  EXPECT_EQ(autotune_mode(), AutotuneMode::Off);
  set_autotune_mode(mode);

  const double budget = autotune_budget();
  set_autotune_budget(0.25);
  EXPECT_EQ(autotune_budget(), 0.25);
  set_autotune_budget(budget);

  const std::int64_t threshold = jit::hot_threshold();
  jit::set_hot_threshold(7);
  EXPECT_EQ(jit::hot_threshold(), 7);
  jit::set_hot_threshold(threshold);

  set_trace_limit(123);
  EXPECT_EQ(trace_limit(), 123);
  set_trace_limit(4096);
}

// The first op on a thread throws what was wrong with a variable read while
// libkiln loaded; the knob's setter replaces the variable and ends it.
TEST(SettingsSetters, ALoadTimeErrorIsThrownAtTheFirstOpUntilItsSetterRuns) {
  profiler::settings::keep_load_error(profiler::settings::Id::Report,
                                      "[settings] KILN_REPORT='maybe' is not a boolean");
  auto first_op = [] {
    std::string error;
    std::thread([&] {
      try {
        (ones({2}) + 1).sum().item<float>();
      } catch (const ValueError& e) {
        error = e.what();
      }
    }).join();
    return error;
  };
  EXPECT_EQ(first_op(), "[settings] KILN_REPORT='maybe' is not a boolean");
  set_report_at_exit(false);
  EXPECT_EQ(first_op(), "");
}

// Variables read at first use, each in a fresh process.
class SettingsEnvDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(SettingsEnvDeathTest, CacheMaxBytesOf1GIsOneGibibyte) {
  EXPECT_EXIT(
      {
        setenv("KILN_CACHE_MAX_BYTES", "1G", 1);
        std::exit(cache_max_bytes() == std::uint64_t{1} << 30 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(SettingsEnvDeathTest, ABadTraceLimitThrowsAtFirstUse) {
  EXPECT_EXIT(
      {
        setenv("KILN_TRACE_LIMIT", "lots", 1);
        try {
          trace_limit();
        } catch (const ValueError& e) {
          std::exit(std::string(e.what()).find("KILN_TRACE_LIMIT='lots'") != std::string::npos ? 0 : 2);
        }
        std::exit(1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(SettingsEnvDeathTest, ASetterReplacesTheVariableRead) {
  EXPECT_EXIT(
      {
        setenv("KILN_AUTOTUNE_BUDGET", "0.5s", 1);
        if (autotune_budget() != 0.5) std::exit(1);
        set_autotune_budget(3);
        std::exit(autotune_budget() == 3 ? 0 : 2);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace kiln

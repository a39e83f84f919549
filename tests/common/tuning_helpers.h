// Shared by the tuner's tests: a fixture with a private tuning database,
// and the message kiln::tune::parse_target rejects a text with.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <kiln/error.h>
#include <kiln/tune.h>

#include "jit/tuning/tuning_store.h"

namespace tuning_test {

/// The process uses a fresh database file under the test temp directory
/// (removed after the test) and ends with KILN_AUTOTUNE's default mode,
/// whatever the test set.
class PrivateTuningDb : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) / ("kiln-tuning-db-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    kiln::jit::tuning::set_tuning_db_file(dir_ / "tuning.json");
  }
  void TearDown() override {
    kiln::jit::tuning::set_autotune_mode(kiln::AutotuneMode::Database);
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
};

/// The ValueError's message for this target text, or "no error".
inline std::string parse_target_error(const char* kernel, const char* shape) {
  try {
    kiln::tune::parse_target(kernel, shape);
  } catch (const kiln::ValueError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace tuning_test

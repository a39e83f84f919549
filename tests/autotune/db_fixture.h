// Shared by the tuning database tests: a fresh directory per test (removed after it),
// a context, entries, and file helpers.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "autotune/tuning_db.h"

namespace kiln::autotune::testing {

inline TuningContext test_context() { return {"Test CPU @ 3.0GHz", "+avx2,+fma", "0.1.0", "19.1.7"}; }

inline TuningEntry test_entry(std::int64_t kc, double seconds = 1e-3) {
  return TuningEntry{{{"kc", kc}, {"mc", 96}}, seconds, 2 * seconds, 4.5, 64, 1764000000 + kc};
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

// A directory of its own for each test, under the system temp directory.
class TuningDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("kiln-autotune-" + std::to_string(::getpid()) + "-" + info->test_suite_name() + "-" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path db_file() const { return dir_ / "tuning.json"; }

  // The file parses as JSON with the expected schema.
  void expect_valid_file() const {
    const nlohmann::json file = nlohmann::json::parse(read_text(db_file()), nullptr, false);
    ASSERT_FALSE(file.is_discarded()) << read_text(db_file());
    EXPECT_EQ(file.at("schema"), "kiln-tuning/1");
  }

  // Names in the directory other than the database and its lock file.
  std::vector<std::string> stray_files() const {
    std::vector<std::string> stray;
    for (const auto& item : std::filesystem::recursive_directory_iterator(dir_)) {
      const std::string name = item.path().filename().string();
      if (item.is_regular_file() && name != "tuning.json" && name != "tuning.json.lock") stray.push_back(name);
    }
    return stray;
  }

  std::filesystem::path dir_;
};

}  // namespace kiln::autotune::testing

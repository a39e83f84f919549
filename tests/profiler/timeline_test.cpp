// The trace-event timeline: a file Perfetto opens, checked with Python's
// JSON parser and the fields the viewer needs (tests/profiler/check_trace.py),
// also when the program exits early or dies of an uncaught exception.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <kiln/kiln.h>

#include "profiler/timeline.h"

namespace {

using kiln::Tensor;

// Next to this binary: private to this build, and the same path in a death
// test's child process as in its parent.
std::string temp_path(const char* name) {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / (std::string("timeline_") + name + ".json"))
      .string();
}

// Runs check_trace.py on `path`; true when the file passes.
bool check(const std::string& path, const std::string& required_names = "") {
  // __FILE__ may be relative to the build's test folder, where this binary is.
  std::filesystem::path source = __FILE__;
  if (source.is_relative()) source = std::filesystem::read_symlink("/proc/self/exe").parent_path() / source;
  const std::string script = source.parent_path() / "check_trace.py";
  const std::string command = "python3 '" + script + "' '" + path + "' " + required_names;
  return std::system(command.c_str()) == 0;
}

// Some work that compiles: hot at its second run, compiled in the foreground.
void compile_something() {
  kiln::jit::set_compile_sync(true);
  kiln::jit::set_hot_threshold(2);
  Tensor x = kiln::rand({1000});
  for (int i = 0; i < 4; ++i) (void)((x * 3.f - 1.f).sigmoid()).data_ptr<float>();
  kiln::jit::set_compile_sync(false);
}

TEST(Timeline, SegmentsAndCompilesAreSpansWithTheFieldsPerfettoNeeds) {
  const std::string path = temp_path("spans");
  ASSERT_TRUE(kiln::profiler::open_timeline(path));
  compile_something();
  kiln::profiler::close_timeline();
  EXPECT_TRUE(check(path, "segment process_name thread_name new_key queued compiled"));
  std::filesystem::remove(path);
}

TEST(Timeline, ClosingTwiceOrWritingAfterCloseKeepsTheFileValid) {
  const std::string path = temp_path("closed");
  ASSERT_TRUE(kiln::profiler::open_timeline(path));
  (void)(kiln::ones({2}) + 1).sum().item<float>();
  kiln::profiler::close_timeline();
  kiln::profiler::close_timeline();
  (void)(kiln::ones({2}) + 2).sum().item<float>();
  EXPECT_TRUE(check(path, "segment"));
  std::filesystem::remove(path);
}

// Under a memory budget: evictions are instants, recomputations spans in
// their own category on the thread that read the value (here a worker,
// named as one: a recomputation is no compile).
TEST(Timeline, RecomputationsAreMemorySpansOnTheReadingThread) {
  const std::string path = temp_path("memory");
  kiln::jit::set_enabled(false);
  kiln::manual_seed(5);
  std::vector<Tensor> values{kiln::randn({512, 512})};
  kiln::sync();
  ASSERT_TRUE(kiln::profiler::open_timeline(path));
  kiln::set_memory_budget(kiln::stats().live_bytes + 4 * (std::size_t{1} << 20));
  for (int i = 0; i < 8; ++i) values.push_back(values.back() * 1.5f + 1.f);
  std::thread([&] {
    for (const Tensor& t : values) (void)t.to_vector<float>();
  }).join();
  kiln::set_memory_budget(0);
  kiln::jit::set_enabled(true);
  kiln::profiler::close_timeline();
  EXPECT_TRUE(check(path, "evicted recomputed"));
  std::ifstream file(path);
  int recomputations = 0;
  for (std::string line; std::getline(file, line);) {
    if (line.find(R"("name":"recomputed)") != std::string::npos) {
      ++recomputations;
      EXPECT_NE(line.find(R"("cat":"memory","ph":"X")"), std::string::npos) << line;
    }
    if (line.find(R"("name":"thread_name")") != std::string::npos) {
      EXPECT_EQ(line.find("compile"), std::string::npos) << line;
    }
  }
  EXPECT_GT(recomputations, 0);
  std::filesystem::remove(path);
}

TEST(Timeline, AnUnwritablePathIsRefused) {
  EXPECT_FALSE(kiln::profiler::open_timeline("/nonexistent-dir/trace.json"));
  EXPECT_FALSE(kiln::profiler::timeline_open());
}

// The child processes of the death tests re-run this binary from the start
// ("threadsafe" style), so they share no threads with the parent.
class TimelineDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(TimelineDeathTest, AProgramThatExitsEarlyLeavesValidJson) {
  const std::string path = temp_path("exit");
  EXPECT_EXIT(
      {
        kiln::profiler::open_timeline(path);
        compile_something();
        std::exit(3);
      },
      ::testing::ExitedWithCode(3), "");
  EXPECT_TRUE(check(path, "segment compiled"));
  std::filesystem::remove(path);
}

TEST_F(TimelineDeathTest, AnUncaughtExceptionLeavesValidJson) {
  const std::string path = temp_path("throw");
  EXPECT_DEATH(
      {
        kiln::profiler::open_timeline(path);
        compile_something();
        std::thread([] { throw std::runtime_error("escaped"); }).join();
      },
      "");
  EXPECT_TRUE(check(path, "segment compiled"));
  std::filesystem::remove(path);
}

}  // namespace

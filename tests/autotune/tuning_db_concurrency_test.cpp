// TuningDb with several writers at once: processes (fork) and threads store distinct
// keys into one file; afterwards every key is there, the file is valid JSON and no
// temporary file is left behind.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include "tests/autotune/db_fixture.h"

namespace kiln::autotune {
namespace {

using testing::test_context;
using testing::test_entry;
using Concurrent = testing::TuningDbTest;

constexpr int kWriters = 4;
constexpr int kKeysEach = 25;

std::string key_of(int writer, int i) { return std::to_string(writer) + "/k" + std::to_string(i); }

void expect_all_keys(const std::filesystem::path& file) {
  const TuningDb reader(file, test_context());
  const auto entries = reader.entries();
  EXPECT_EQ(entries.size(), static_cast<std::size_t>(kWriters * kKeysEach));
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kKeysEach; ++i) EXPECT_EQ(reader.lookup(key_of(w, i)), test_entry(w * 100 + i)) << w << i;
  }
}

TEST_F(Concurrent, ProcessesStoringAtOnceLoseNoKey) {
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        TuningDb db(db_file(), test_context());
        for (int i = 0; i < kKeysEach; ++i) db.store(key_of(w, i), test_entry(w * 100 + i));
      } catch (...) {
        status = 1;
      }
      ::_exit(status);  // no gtest teardown in the child
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer process failed";
  }
  expect_valid_file();
  expect_all_keys(db_file());
  EXPECT_TRUE(stray_files().empty());
}

TEST_F(Concurrent, ThreadsSharingOneDatabaseAndThreadsWithTheirOwnLoseNoKey) {
  TuningDb shared(db_file(), test_context());
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      TuningDb own(db_file(), test_context());
      TuningDb& db = w % 2 == 0 ? shared : own;  // writers 0 and 2 share one object
      for (int i = 0; i < kKeysEach; ++i) {
        db.store(key_of(w, i), test_entry(w * 100 + i));
        EXPECT_EQ(shared.lookup(key_of(w, i)), test_entry(w * 100 + i));  // a reader while others write
      }
    });
  }
  for (std::thread& t : threads) t.join();
  expect_valid_file();
  expect_all_keys(db_file());
  EXPECT_TRUE(stray_files().empty());
}

}  // namespace
}  // namespace kiln::autotune

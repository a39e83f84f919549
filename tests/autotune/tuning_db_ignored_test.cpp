// TuningDb with a file it cannot use (truncated, garbage, another schema, another
// context, a malformed entry): lookups see nothing, one warning line says why, and the
// next store() replaces the file with a fresh one.
#include <gtest/gtest.h>

#include "tests/autotune/db_fixture.h"

namespace kiln::autotune {
namespace {

using testing::read_text;
using testing::test_context;
using testing::test_entry;
using testing::write_text;
using Ignored = testing::TuningDbTest;

// A valid file holding key "old".
std::string valid_text(const std::filesystem::path& file, const TuningContext& context) {
  TuningDb(file, context).store("old", test_entry(1));
  return read_text(file);
}

// Writes `text`, checks a lookup warns once (naming the path and `why`), checks the
// next store() rebuilds the file with only the new entry.
void expect_ignored_then_rebuilt(const std::filesystem::path& file, const std::string& text, const std::string& why) {
  write_text(file, text);
  TuningDb db(file, test_context());
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(db.lookup("old"), std::nullopt);
  EXPECT_TRUE(db.entries().empty());
  EXPECT_EQ(db.lookup("old"), std::nullopt);
  const std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(warning, "kiln: tuning database " + file.string() + " ignored: " + why + "; it will be rebuilt\n");

  db.store("new", test_entry(2));
  const TuningDb reader(file, test_context());
  ::testing::internal::CaptureStderr();
  const auto entries = reader.entries();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0], std::make_pair(std::string("new"), test_entry(2)));
}

TEST_F(Ignored, TruncatedFile) {
  const std::string text = valid_text(db_file(), test_context());
  expect_ignored_then_rebuilt(db_file(), text.substr(0, text.size() / 2), "not valid JSON");
  expect_valid_file();
}

TEST_F(Ignored, GarbageBytes) {
  expect_ignored_then_rebuilt(db_file(), std::string("\x7f" "ELF\0\x01\xff garbage", 15), "not valid JSON");
  expect_ignored_then_rebuilt(db_file(), "", "not valid JSON");
  expect_ignored_then_rebuilt(db_file(), "[1, 2, 3]", "not a JSON object");
}

TEST_F(Ignored, WrongSchema) {
  std::string text = valid_text(db_file(), test_context());
  text.replace(text.find("kiln-tuning/1"), 13, "kiln-tuning/2");
  expect_ignored_then_rebuilt(db_file(), text, "schema \"kiln-tuning/2\", expected \"kiln-tuning/1\"");
  expect_ignored_then_rebuilt(db_file(), "{\"entries\": {}}", "missing \"schema\"");
}

TEST_F(Ignored, AnotherContext) {
  TuningContext other = test_context();
  other.llvm_version = "18.1.8";
  const std::string text = valid_text(db_file(), other);
  EXPECT_EQ(TuningDb(db_file(), other).lookup("old"), test_entry(1));
  expect_ignored_then_rebuilt(db_file(), text, "written for another llvm_version ('18.1.8', this process '19.1.7')");
  EXPECT_EQ(TuningDb(db_file(), other).lookup("new"), std::nullopt);  // now the old context's file is gone
}

TEST_F(Ignored, MalformedEntry) {
  std::string text = valid_text(db_file(), test_context());
  text.replace(text.find("\"kc\": 1"), 7, "\"kc\": 1.5");
  expect_ignored_then_rebuilt(db_file(), text, "entry \"old\": \"kc\" is not an integer");
}

TEST_F(Ignored, WarnsOncePerDatabaseObject) {
  write_text(db_file(), "{");
  const TuningDb db(db_file(), test_context());
  ::testing::internal::CaptureStderr();
  db.lookup("a");
  write_text(db_file(), "{{");  // changed, and still broken
  db.lookup("a");
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(std::count(warnings.begin(), warnings.end(), '\n'), 1) << warnings;
}

TEST_F(Ignored, EraseMatchingLeavesAnUnusableFileAlone) {
  write_text(db_file(), "not json");
  TuningDb db(db_file(), test_context());
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(db.erase_matching(""), 0u);
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(read_text(db_file()), "not json");
}

}  // namespace
}  // namespace kiln::autotune

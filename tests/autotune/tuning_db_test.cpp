// TuningDb: round trips through the file, the file format, re-reading a changed file,
// erase_matching, and IO errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tests/autotune/db_fixture.h"

namespace kiln::autotune {
namespace {

using testing::read_text;
using testing::test_context;
using testing::test_entry;
using Db = testing::TuningDbTest;

TEST_F(Db, MissingFileIsEmptyAndNotCreatedByLookup) {
  const TuningDb db(db_file(), test_context());
  EXPECT_EQ(db.lookup("gemm/f32/nn/128x512x512"), std::nullopt);
  EXPECT_TRUE(db.entries().empty());
  EXPECT_FALSE(std::filesystem::exists(db_file()));
}

TEST_F(Db, StoreThenLookupFromAnotherObject) {
  TuningDb writer(db_file(), test_context());
  writer.store("gemm/f32/nn/128x512x512", test_entry(384));
  writer.store("gemm/f32/nt/64x64x64", test_entry(128, 0.125));
  expect_valid_file();
  const TuningDb reader(db_file(), test_context());
  EXPECT_EQ(reader.lookup("gemm/f32/nn/128x512x512"), test_entry(384));
  EXPECT_EQ(reader.lookup("gemm/f32/nt/64x64x64"), test_entry(128, 0.125));
  EXPECT_EQ(reader.lookup("gemm/f32/tn/64x64x64"), std::nullopt);
  EXPECT_EQ(writer.lookup("gemm/f32/nn/128x512x512"), test_entry(384));
}

TEST_F(Db, ReaderSeesLaterStoresOfAnotherObject) {
  TuningDb writer(db_file(), test_context());
  const TuningDb reader(db_file(), test_context());
  writer.store("k", test_entry(256));
  EXPECT_EQ(reader.lookup("k"), test_entry(256));
  writer.store("k", test_entry(512));  // same size of file: the new inode tells it changed
  EXPECT_EQ(reader.lookup("k"), test_entry(512));
  writer.store("k2", test_entry(8));
  EXPECT_EQ(reader.entries().size(), 2u);
}

TEST_F(Db, StoreMergesWithWhatAnotherObjectWrote) {
  TuningDb a(db_file(), test_context());
  TuningDb b(db_file(), test_context());
  a.store("a", test_entry(1));
  b.store("b", test_entry(2));  // b never read the file before: store re-reads it under the lock
  a.store("c", test_entry(3));
  const auto entries = TuningDb(db_file(), test_context()).entries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0], std::make_pair(std::string("a"), test_entry(1)));
  EXPECT_EQ(entries[1], std::make_pair(std::string("b"), test_entry(2)));
  EXPECT_EQ(entries[2], std::make_pair(std::string("c"), test_entry(3)));
}

TEST_F(Db, FileIsThePrettyPrintedDocumentedFormat) {
  TuningDb db(db_file(), test_context());
  db.store("gemm/f32/nn/128x512x512", test_entry(384, 0.5));
  const nlohmann::ordered_json expected = {
      {"schema", "kiln-tuning/1"},
      {"context",
       {{"cpu_model", "Test CPU @ 3.0GHz"},
        {"cpu_features", "+avx2,+fma"},
        {"kiln_version", "0.1.0"},
        {"llvm_version", "19.1.7"}}},
      {"entries",
       {{"gemm/f32/nn/128x512x512",
         {{"config", {{"kc", 384}, {"mc", 96}}},
          {"seconds", 0.5},
          {"default_seconds", 1.0},
          {"tuning_seconds", 4.5},
          {"evaluated", 64},
          {"tuned_at", 1764000384}}}}}};
  EXPECT_EQ(read_text(db_file()), expected.dump(2) + "\n");
  // Written top-down (schema, context, entries), not in nlohmann json's sorted key order.
  EXPECT_TRUE(read_text(db_file()).starts_with("{\n  \"schema\": \"kiln-tuning/1\",\n  \"context\": {\n"));
}

TEST_F(Db, StoreCreatesMissingDirectoriesAndLeavesNoTemporaryFile) {
  const std::filesystem::path nested = dir_ / "a" / "b" / "tuning.json";
  TuningDb db(nested, test_context());
  db.store("k", test_entry(4));
  EXPECT_EQ(TuningDb(nested, test_context()).lookup("k"), test_entry(4));
  EXPECT_EQ(db.file(), nested);
  EXPECT_TRUE(stray_files().empty());
}

TEST_F(Db, EraseMatchingRemovesByPrefix) {
  TuningDb db(db_file(), test_context());
  db.store("gemm/f32/nn/64x64x64", test_entry(1));
  db.store("gemm/f32/nt/64x64x64", test_entry(2));
  db.store("gemm/f64/nn/64x64x64", test_entry(3));
  db.store("reduce/f32/1024", test_entry(4));
  EXPECT_EQ(db.erase_matching("gemm/f32/"), 2u);
  expect_valid_file();
  const TuningDb reader(db_file(), test_context());
  EXPECT_EQ(reader.lookup("gemm/f32/nn/64x64x64"), std::nullopt);
  EXPECT_EQ(reader.lookup("gemm/f64/nn/64x64x64"), test_entry(3));
  EXPECT_EQ(db.erase_matching("conv/"), 0u);
  EXPECT_EQ(db.erase_matching(""), 2u);
  EXPECT_TRUE(reader.entries().empty());
  expect_valid_file();
  EXPECT_TRUE(stray_files().empty());
}

TEST_F(Db, EraseMatchingWithoutAFileErasesNothing) {
  TuningDb db(dir_ / "absent" / "tuning.json", test_context());
  EXPECT_EQ(db.erase_matching(""), 0u);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "absent"));
}

TEST_F(Db, StoreThrowsNamingThePathWhenItCannotWrite) {
  testing::write_text(dir_ / "blocker", "a file where a directory is needed");
  TuningDb db(dir_ / "blocker" / "tuning.json", test_context());
  try {
    db.store("k", test_entry(1));
    FAIL() << "store() into a path under a regular file must throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir_ / "blocker" / "tuning.json").string()), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::autotune

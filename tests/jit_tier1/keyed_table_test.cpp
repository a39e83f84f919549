// The JIT's per-key tables drop the least recently used records past their
// bound: a key looked up on every run must survive any number of newer keys
// (the soak program's hot chains), one never looked up again must go.
#include <gtest/gtest.h>

#include <cstdint>

#include "jit/tier1/keyed_table.h"

namespace {

// Each record type has its own process-wide table: these tests own theirs.
struct FoundOften {};
struct NeverFound {};

TEST(KeyedTable, AKeyFoundOnEveryRunOutlivesNewerKeys) {
  using Table = kiln::jit::KeyedTable<FoundOften>;
  Table::set_capacity(8);
  const auto hot = Table::get(1);
  for (std::uint64_t key = 2; key < 200; ++key) {
    ASSERT_EQ(Table::find(1), hot) << "key 1 dropped before key " << key << " came";
    Table::get(key);
  }
  EXPECT_LE(Table::size(), 8u);
}

TEST(KeyedTable, AKeyNeverFoundAgainIsDroppedPastTheBound) {
  using Table = kiln::jit::KeyedTable<NeverFound>;
  Table::set_capacity(8);
  Table::get(1);
  for (std::uint64_t key = 2; key < 200; ++key) Table::get(key);
  EXPECT_EQ(Table::find(1), nullptr);
  EXPECT_LE(Table::size(), 8u);
}

}  // namespace

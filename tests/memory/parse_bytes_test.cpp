#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include <kiln/error.h>
#include <kiln/memory/memory.h>

namespace kiln::memory {
namespace {

TEST(MemoryParseBytes, AcceptsNumbersWithBinarySuffixes) {
  const std::pair<const char*, std::size_t> cases[] = {
      {"0", 0},
      {"123", 123},
      {"100B", 100},
      {"64K", 64 << 10},
      {"64k", 64 << 10},
      {"8KB", 8 << 10},
      {"512M", std::size_t{512} << 20},
      {"2G", std::size_t{2} << 30},
      {"4GiB", std::size_t{4} << 30},
      {"1T", std::size_t{1} << 40},
      {"1.5G", std::size_t{3} << 29},
      {"0.5K", 512},
      {"1.3K", 1331},  // 1331.2 rounds down
      {"2.5", 2},
      {"18446744073709551615", SIZE_MAX},
  };
  for (auto [text, bytes] : cases) EXPECT_EQ(parse_bytes(text), bytes) << text;
}

TEST(MemoryParseBytes, RejectsEverythingElseNamingTheText) {
  const char* bad[] = {"",    "-1",  "+1",    " 1",   "1 ",   "1.",  ".5",  "1.5.5", "abc",
                       "12x", "1KK", "1Q",    "1e9",  "1iB",  "K",   "0x10", "18446744073709551616",
                       "16777216T",  "17179869184G"};
  for (const char* text : bad) {
    try {
      parse_bytes(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + text + "'"), std::string::npos) << e.what();
    } catch (...) {
      ADD_FAILURE() << "'" << text << "' threw something other than kiln::ValueError";
    }
  }
}

}  // namespace
}  // namespace kiln::memory

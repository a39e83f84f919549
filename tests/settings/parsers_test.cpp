// The shared parsers of <kiln/setting_parsers.h>, each against good and bad
// text: a bad one throws kiln::ValueError naming the variable and the text.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <kiln/error.h>
#include <kiln/setting_parsers.h>

namespace kiln::settings {
namespace {

// Every text in `bad` makes `parse` throw ValueError naming KILN_X and the text.
void expect_rejected(const std::vector<std::string>& bad, const std::function<void(const std::string&)>& parse) {
  for (const std::string& text : bad) {
    try {
      parse(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("KILN_X='" + text + "'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("accepted: "), std::string::npos) << e.what();
    } catch (...) {
      ADD_FAILURE() << "'" << text << "' threw something other than kiln::ValueError";
    }
  }
}

TEST(SettingParsers, BytesTakeBinarySuffixesAndPlainBytes) {
  const std::pair<const char*, std::uint64_t> cases[] = {
      {"0", 0},
      {"123", 123},
      {"100B", 100},
      {"64K", 64 << 10},
      {"64k", 64 << 10},
      {"8KB", 8 << 10},
      {"512M", std::uint64_t{512} << 20},
      {"512MiB", std::uint64_t{512} << 20},
      {"1G", std::uint64_t{1} << 30},
      {"4GiB", std::uint64_t{4} << 30},
      {"1T", std::uint64_t{1} << 40},
      {"1.5G", std::uint64_t{3} << 29},
      {"0.5K", 512},
      {"1.3K", 1331},  // 1331.2 rounds down
      {"2.5", 2},
      {"18446744073709551615", UINT64_MAX},
  };
  for (auto [text, bytes] : cases) EXPECT_EQ(parse_bytes("KILN_X", text), bytes) << text;
}

// Digits past the 18th of a fraction are below any unit's resolution and are
// read but dropped; a long fraction once kept multiplying the scale until it
// wrapped to 0 and the division trapped (found by settings_fuzz).
TEST(SettingParsers, LongFractionsAreReadToTheirEnd) {
  const std::string long_fraction = "1." + std::string(200, '8') + "111111";
  EXPECT_EQ(parse_bytes("KILN_X", long_fraction), 1u);
  EXPECT_EQ(parse_bytes("KILN_X", "0." + std::string(60, '5') + "K"), 568u);
  EXPECT_NEAR(parse_duration("KILN_X", long_fraction, TimeUnit::Milliseconds, 1), 1.888888888888888888, 1e-12);
}

TEST(SettingParsers, BytesRejectEverythingElse) {
  expect_rejected({"", "-1", "+1", " 1", "1 ", "1.", ".5", "1.5.5", "abc", "12x", "1KK", "1Q", "1e9", "1iB", "K",
                   "0x10", "18446744073709551616", "16777216T", "17179869184G"},
                  [](const std::string& t) { parse_bytes("KILN_X", t); });
}

TEST(SettingParsers, IntegersWithinTheirBounds) {
  EXPECT_EQ(parse_int("KILN_X", "1", 1, 10), 1);
  EXPECT_EQ(parse_int("KILN_X", "10", 1, 10), 10);
  EXPECT_EQ(parse_int("KILN_X", "-3", -5, 5), -3);
  EXPECT_EQ(parse_int("KILN_X", "9223372036854775807", 0, INT64_MAX), INT64_MAX);
  EXPECT_EQ(parse_int("KILN_X", "-9223372036854775808", INT64_MIN, 0), INT64_MIN);
  expect_rejected({"", "0", "11", "-", "+1", "1.0", "1e3", " 1", "1 ", "ten", "99999999999999999999999"},
                  [](const std::string& t) { parse_int("KILN_X", t, 1, 10); });
}

TEST(SettingParsers, BooleansInTheUsualWords) {
  for (const char* yes : {"1", "true", "on", "yes", "TRUE", "On", "YES"}) EXPECT_TRUE(parse_bool("KILN_X", yes)) << yes;
  for (const char* no : {"0", "false", "off", "no", "False", "OFF"}) EXPECT_FALSE(parse_bool("KILN_X", no)) << no;
  expect_rejected({"", "2", "-1", "y", "n", "enable", "truee", " 1"}, [](const std::string& t) { parse_bool("KILN_X", t); });
}

TEST(SettingParsers, DurationsWithUnitsOrInTheKnobsUnit) {
  EXPECT_DOUBLE_EQ(parse_duration("KILN_X", "500", TimeUnit::Milliseconds, 1), 500);
  EXPECT_DOUBLE_EQ(parse_duration("KILN_X", "2s", TimeUnit::Milliseconds, 1), 2000);
  EXPECT_DOUBLE_EQ(parse_duration("KILN_X", "1min", TimeUnit::Milliseconds, 1), 60000);
  EXPECT_DOUBLE_EQ(parse_duration("KILN_X", "2", TimeUnit::Seconds, 0), 2);
  EXPECT_DOUBLE_EQ(parse_duration("KILN_X", "0.5", TimeUnit::Seconds, 0), 0.5);
  EXPECT_DOUBLE_EQ(parse_duration("KILN_X", "250ms", TimeUnit::Seconds, 0), 0.25);
  expect_rejected({"", "0", "0.5", "0s", "-1", "1h", "1 s", "s", "1.5.5", "1e3", "1S"},
                  [](const std::string& t) { parse_duration("KILN_X", t, TimeUnit::Milliseconds, 1); });
  expect_rejected({"0", "0ms", "-2"}, [](const std::string& t) { parse_duration("KILN_X", t, TimeUnit::Seconds, 0); });
}

TEST(SettingParsers, ChoicesAreExactWords) {
  for (const char* word : {"0", "1", "online"}) EXPECT_EQ(parse_choice("KILN_X", word, "0|1|online"), word);
  expect_rejected({"", "2", "Online", "on", "0|1", "1,online"},
                  [](const std::string& t) { parse_choice("KILN_X", t, "0|1|online"); });
}

TEST(SettingParsers, ListsOfKnownItemsOrAll) {
  for (const char* list : {"ir", "spec,ir,opt,asm", "asm,ir", "all", "ir,all"})
    EXPECT_EQ(parse_list("KILN_X", list, "spec|ir|opt|asm"), list);
  expect_rejected({"", ",", "ir,", ",ir", "ir,,asm", "IR", "ir asm", "llvm"},
                  [](const std::string& t) { parse_list("KILN_X", t, "spec|ir|opt|asm"); });
}

TEST(SettingParsers, PathsWithoutControlCharacters) {
  for (const char* path : {"/tmp/kiln", "relative/dir", "with space/and-ümlaut", "off"})
    EXPECT_EQ(parse_path("KILN_X", path), path);
  expect_rejected({"a\nb", "tab\there", std::string("bell\x07"), std::string("del\x7f")},
                  [](const std::string& t) { parse_path("KILN_X", t); });
}

TEST(SettingParsers, CacheDirOffOrGivenOrThePlatformsDefault) {
  EXPECT_EQ(cache_dir_for(std::string("off")), "");
  EXPECT_EQ(cache_dir_for(std::string("/tmp/c")), "/tmp/c");
  const std::optional<std::string> xdg = environment("XDG_CACHE_HOME");
  const std::optional<std::string> home = environment("HOME");
  const std::string expected = xdg ? *xdg + "/kiln" : home ? *home + "/.cache/kiln" : "";
  EXPECT_EQ(cache_dir_for(std::nullopt), expected);
}

}  // namespace
}  // namespace kiln::settings

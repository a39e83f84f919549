// The snapshot's JSON between writer and reader: the reader is strict about
// syntax (a file kiln did not write completely is refused, saying where) and
// lax about content (absent or mistyped fields read as defaults); the writer
// escapes any bytes so that its output parses and reads back the same.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "profiler/json_escape.h"
#include "profiler/json_out.h"
#include "profiler/stats_json.h"
#include "tools/json.h"
#include "tools/snapshot.h"

namespace kiln::tools {
namespace {

std::string parse_error(std::string_view text) {
  try {
    Json::parse(text);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(JsonReader, RefusesWhatRfc8259Refuses) {
  EXPECT_NE(parse_error(R"(["\q"])"), "") << "unknown escape";
  EXPECT_NE(parse_error(R"(["\u12G4"])"), "") << "\\u with a non-hex digit";
  EXPECT_NE(parse_error(R"(["\u12"])"), "") << "\\u with two digits";
  EXPECT_NE(parse_error(R"(["\ud800"])"), "") << "a lone high surrogate";
  EXPECT_NE(parse_error(R"(["\udc00x"])"), "") << "a lone low surrogate";
  EXPECT_NE(parse_error("[\"\xff\"]"), "") << "a byte that is not UTF-8";
  EXPECT_NE(parse_error("[\"a\nb\"]"), "") << "a raw control character";
  EXPECT_NE(parse_error("{\"a\": 1,}"), "") << "a trailing comma";
  EXPECT_NE(parse_error("{\"a\": 1} x"), "") << "text after the value";
  EXPECT_NE(parse_error("[01]"), "") << "a leading zero";
}

TEST(JsonReader, ErrorsSayWhereAndWhat) {
  const std::string e = parse_error("{\"a\": \n  [1, 2");
  EXPECT_NE(e.find("line 2"), std::string::npos) << e;
  EXPECT_NE(e.find("unexpected end of input"), std::string::npos) << e;
}

TEST(JsonReader, DecodesSurrogatePairsAndEscapes) {
  Json j = Json::parse(R"({"s": "\ud83d\ude00 \u00e9\t\"\\\/"})");
  EXPECT_EQ(j["s"].string(), "\xF0\x9F\x98\x80 \xC3\xA9\t\"\\/");
}

TEST(JsonReader, AbsentOrMistypedFieldsReadAsDefaults) {
  Json j = Json::parse(R"({"n": 2.5, "s": "x", "b": true, "a": [1, {"k": 3}], "o": {"z": 1, "y": 2}, "nul": null})");
  EXPECT_EQ(j["n"].number(), 2.5);
  EXPECT_EQ(j["missing"].number(7), 7);
  EXPECT_EQ(j["s"].number(7), 7) << "a string is not a number";
  EXPECT_EQ(j["n"].string("dash"), "dash");
  EXPECT_EQ(j["nul"].boolean(true), true);
  EXPECT_EQ(j["missing"]["deeper"]["still"].kind(), Json::Kind::Null);
  EXPECT_TRUE(j["n"].items().empty());
  EXPECT_TRUE(j["a"].members().empty());
  EXPECT_TRUE(j.has("nul"));
  EXPECT_FALSE(j["a"].has("k"));
  ASSERT_EQ(j["a"].items().size(), 2u);
  EXPECT_EQ(j["a"].items()[1]["k"].number(), 3);
  const auto members = j["o"].members();
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].first, "y") << "members come in name order";
}

TEST(JsonReader, AViewOutlivesTheDocumentItCameFrom) {
  Json inner;
  {
    Json doc = Json::parse(R"({"a": {"b": [10, 20]}})");
    inner = doc["a"]["b"].items()[1];
  }
  EXPECT_EQ(inner.number(), 20);
}

TEST(JsonReader, AMalformedSnapshotNamesTheFileAndTheProblem) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("kiln_json_test_" + std::to_string(::getpid()) + ".json")).string();
  std::ofstream(path) << R"({"schema": 1, "stats": {"x": "\u00zz"}})";
  Snapshot s = load_snapshot(path);
  std::filesystem::remove(path);
  EXPECT_EQ(s.status, SnapshotStatus::Corrupt);
  EXPECT_EQ(s.message.rfind(path + ": corrupt snapshot (parse error at line 1", 0), 0u) << s.message;
  EXPECT_NE(s.message.find("\\u"), std::string::npos) << s.message;
}

// Strings a writer meets: every control character, JSON's own syntax, and
// bytes that are not UTF-8 (a truncated sequence, a stray continuation byte,
// an overlong form, an encoded surrogate, a code point past U+10FFFF).
struct Nasty {
  std::string written;
  std::string read;  // what a reader gets back: malformed bytes become U+FFFD each
};

std::vector<Nasty> nasty_strings() {
  const std::string fffd = "\xEF\xBF\xBD";
  std::string controls;
  for (int c = 0; c < 0x20; ++c) controls += static_cast<char>(c);
  return {
      {controls, controls},
      {R"(quote " backslash \ slash / braces {}[],:)", R"(quote " backslash \ slash / braces {}[],:)"},
      {"\x7f del", "\x7f del"},
      {"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"},
      {"trunc\xC3", "trunc" + fffd},
      {"stray\x80\xBF", "stray" + fffd + fffd},
      {"overlong\xC0\xAF", "overlong" + fffd + fffd},
      {"surrogate\xED\xA0\x80", "surrogate" + fffd + fffd + fffd},
      {"past\xF4\x90\x80\x80", "past" + fffd + fffd + fffd + fffd},
      {"\xFF\xFE", fffd + fffd},
      {std::string("nul\0inside", 10), std::string("nul\0inside", 10)},
  };
}

TEST(JsonWriter, NastyStringsRoundTripThroughTheReader) {
  profiler::JsonOut o;
  o.begin_array();
  for (const Nasty& n : nasty_strings()) {
    o.begin_object();
    o.field(n.written, std::string_view(n.written));  // as a member name too
    o.end_object();
  }
  o.end_array();
  std::vector<Json> read = Json::parse(o.text()).items();
  std::vector<Nasty> nasty = nasty_strings();
  ASSERT_EQ(read.size(), nasty.size());
  for (std::size_t i = 0; i < nasty.size(); ++i) {
    const auto members = read[i].members();
    ASSERT_EQ(members.size(), 1u) << i;
    EXPECT_EQ(members[0].first, nasty[i].read) << i;
    EXPECT_EQ(members[0].second.string(), nasty[i].read) << i;
  }
}

TEST(JsonWriter, EscapedTextIsAJsonStringBody) {
  for (const Nasty& n : nasty_strings())
    EXPECT_EQ(Json::parse("\"" + profiler::json_escape(n.written) + "\"").string(), n.read);
}

TEST(JsonWriter, ASnapshotWithNastyStringsReadsBack) {
  Stats stats;
  KeyStats key;
  key.call_site = "\xFF weird \"file\".cpp:1\n";
  stats.top_keys.push_back(key);
  stats.jit.recent_failures = {"bad \\ byte \xC3"};
  profiler::SnapshotMeta meta;
  meta.program = "prog\t\x01";
  Json doc = Json::parse(profiler::stats_json(stats, meta));
  EXPECT_EQ(doc["program"].string(), "prog\t\x01");
  EXPECT_EQ(doc["stats"]["top_keys"].items()[0]["call_site"].string(), "\xEF\xBF\xBD weird \"file\".cpp:1\n");
  EXPECT_EQ(doc["stats"]["jit"]["recent_failures"].items()[0].string(), "bad \\ byte \xEF\xBF\xBD");
}

}  // namespace
}  // namespace kiln::tools

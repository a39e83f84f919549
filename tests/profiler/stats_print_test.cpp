#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include <kiln/profiler/stats.h>

#include "profiler/counters.h"

namespace kiln {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ProfilerStatsPrint, TableShowsTheNumbers) {
  Stats s;
  s.ops_recorded = 1234;
  s.ops_executed = 1200;
  s.ops_eliminated = 34;
  s.segments_run = 57;
  s.segments_by_reason[static_cast<std::size_t>(profiler::CutReason::Sync)] = 50;
  s.segments_by_reason[static_cast<std::size_t>(profiler::CutReason::Item)] = 7;
  s.distinct_keys = 3;
  s.top_keys = {{.key = 0xdeadbeef, .runs = 50, .ops = 12, .total_ms = 3.25, .first_reason = "item", .last_reason = "sync"}};
  s.intermediate_bytes = 3 << 19;
  s.live_bytes = 1 << 20;
  s.peak_bytes = 4 << 20;
  s.allocations = 100;
  s.pool_hits = 90;

  std::ostringstream out;
  out << s;
  const std::string text = out.str();
  EXPECT_TRUE(contains(text, "ops recorded 1234")) << text;
  EXPECT_TRUE(contains(text, "ops executed 1200")) << text;
  EXPECT_TRUE(contains(text, "ops eliminated 34")) << text;
  EXPECT_TRUE(contains(text, "segments run 57")) << text;
  EXPECT_TRUE(contains(text, "item 7")) << text;
  EXPECT_TRUE(contains(text, "sync 50")) << text;
  EXPECT_FALSE(contains(text, "print")) << text;  // reasons that never cut are left out
  EXPECT_TRUE(contains(text, "distinct keys 3")) << text;
  EXPECT_TRUE(contains(text, "0x00000000deadbeef")) << text;
  EXPECT_TRUE(contains(text, "3.250")) << text;
  EXPECT_TRUE(contains(text, "intermediate bytes 1.50 MiB")) << text;
  EXPECT_TRUE(contains(text, "live bytes 1.00 MiB")) << text;
  EXPECT_TRUE(contains(text, "peak bytes 4.00 MiB")) << text;
  EXPECT_TRUE(contains(text, "budget bytes unlimited")) << text;
  EXPECT_TRUE(contains(text, "allocations 100, pool hits 90")) << text;
}

TEST(ProfilerStatsPrint, CallerStreamFlagsNeitherLeakInNorOut) {
  Stats s;
  s.ops_recorded = 255;
  s.budget_bytes = 2ull << 30;
  std::ostringstream out;
  out << std::hex << s << 255;
  const std::string text = out.str();
  EXPECT_TRUE(contains(text, "ops recorded 255")) << text;
  EXPECT_TRUE(contains(text, "budget bytes 2.00 GiB")) << text;
  EXPECT_EQ(text.substr(text.size() - 2), "ff");
}

TEST(ProfilerStatsPrint, EveryDeclaredCounterIsPrinted) {
  std::ostringstream out;
  out << Stats{};
  const std::string text = out.str();
  for (const CounterInfo& c : kCounters) {
    std::string label(c.name);
    for (char& ch : label) ch = ch == '_' ? ' ' : ch;
    EXPECT_TRUE(contains(text, label + " ")) << c.name << " is missing from\n" << text;
  }
}

TEST(ProfilerStatsPrint, LongSectionsWrapUnderTheirLabel) {
  std::ostringstream out;
  out << Stats{};
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 110u) << line;
}

}  // namespace
}  // namespace kiln

// Call sites: a cut is attributed to the line of the user's code that made
// it -- this file's own lines -- whether the entry point handed its caller
// down (item(), sync()) or the profiler unwound to it (the op limit).
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <string>

#include <kiln/kiln.h>

#include "profiler/enabled.h"

namespace {

using kiln::Tensor;

class CallSiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kiln::sync();
    kiln::reset_stats();
  }
  void TearDown() override {
    kiln::set_trace_limit(4096);
    kiln::profiler::set_enabled(true);
  }
};

const kiln::CutSiteStats* site_for(const kiln::Stats& s, const char* reason) {
  for (const kiln::CutSiteStats& c : s.cut_sites)
    if (std::strcmp(c.reason, reason) == 0) return &c;
  return nullptr;
}

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

TEST_F(CallSiteTest, ItemInALoopIsOneSiteAtItsLine) {
  Tensor x = kiln::ones({4});
  kiln::sync();  // so that every iteration is the same segment
  kiln::reset_stats();
  float total = 0;
  int item_line = 0;
  for (int i = 0; i < 5; ++i) {
    Tensor y = (x * static_cast<float>(i)).sum();
    item_line = __LINE__ + 1;
    total += y.item<float>();
  }
  EXPECT_EQ(total, 40.f);
  const kiln::Stats s = kiln::stats();
  const kiln::CutSiteStats* site = site_for(s, "item");
  ASSERT_NE(site, nullptr);
  EXPECT_EQ(site->count, 5u);
  EXPECT_TRUE(ends_with(site->file, "call_site_test.cpp")) << site->call_site;
  EXPECT_EQ(site->line, static_cast<std::uint32_t>(item_line)) << site->call_site;
  EXPECT_NE(site->call_site.find("call_site_test.cpp:" + std::to_string(item_line)), std::string::npos);

  // The key's first run was cut there too.
  ASSERT_FALSE(s.top_keys.empty());
  EXPECT_EQ(s.top_keys[0].runs, 5u);
  EXPECT_EQ(s.top_keys[0].call_site, site->call_site);
}

TEST_F(CallSiteTest, OpLimitCutsAreFoundByUnwindingToTheUserFrame) {
  kiln::set_trace_limit(3);
  Tensor x = kiln::ones({4});
  const int add_line = __LINE__ + 1;
  for (int i = 0; i < 6; ++i) x = x + 1;
  const kiln::Stats s = kiln::stats();
  const kiln::CutSiteStats* site = site_for(s, "op_limit");
  ASSERT_NE(site, nullptr);
  EXPECT_EQ(site->count, 2u);
  EXPECT_TRUE(ends_with(site->file, "call_site_test.cpp")) << site->call_site;
  EXPECT_EQ(site->line, static_cast<std::uint32_t>(add_line)) << site->call_site;
}

TEST_F(CallSiteTest, SyncAndPrintingAreAttributedToTheirCallers) {
  Tensor x = kiln::ones({2}) + 1;
  const int sync_line = __LINE__ + 1;
  kiln::sync();
  Tensor y = x * 2;
  std::ostringstream out;
  const int print_line = __LINE__ + 1;
  out << y;
  const kiln::Stats s = kiln::stats();
  ASSERT_NE(site_for(s, "sync"), nullptr);
  EXPECT_EQ(site_for(s, "sync")->line, static_cast<std::uint32_t>(sync_line));
  ASSERT_NE(site_for(s, "print"), nullptr);
  EXPECT_EQ(site_for(s, "print")->line, static_cast<std::uint32_t>(print_line));
}

TEST_F(CallSiteTest, NewSitesAndKeysAreLoggedAsEvents) {
  Tensor x = kiln::ones({3});
  kiln::sync();
  kiln::reset_stats();
  for (int i = 0; i < 3; ++i) (void)(x + 1).sum().item<float>();
  const kiln::Stats s = kiln::stats();
  int cut_sites = 0, new_keys = 0;
  for (const kiln::EventStats& e : s.recent_events) {
    if (std::strcmp(e.kind, "cut_site") == 0) {
      ++cut_sites;
      EXPECT_STREQ(e.detail.c_str(), "item");
      EXPECT_NE(e.call_site.find("call_site_test.cpp"), std::string::npos) << e.call_site;
    }
    if (std::strcmp(e.kind, "new_key") == 0) ++new_keys;
    EXPECT_GT(e.thread, 0u);
  }
  EXPECT_EQ(cut_sites, 1);  // one site, however often it cuts
  EXPECT_EQ(new_keys, 1);   // one key, however often it runs
}

TEST_F(CallSiteTest, ProfilingOffRecordsNoKeysSitesOrEvents) {
  kiln::profiler::set_enabled(false);
  Tensor x = kiln::ones({3});
  EXPECT_EQ((x + 1).sum().item<float>(), 6.f);
  const kiln::Stats s = kiln::stats();
  EXPECT_FALSE(s.profiling);
  EXPECT_EQ(s.segments_run, 0u);
  EXPECT_TRUE(s.top_keys.empty());
  EXPECT_TRUE(s.cut_sites.empty());
  EXPECT_TRUE(s.recent_events.empty());
}

}  // namespace

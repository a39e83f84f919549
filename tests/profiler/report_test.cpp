// The human report: the numbers a user needs and advice that names the line
// of their code to change.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include <kiln/kiln.h>

#include "profiler/report.h"

namespace {

using kiln::Tensor;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Report, AnItemInALoopGetsAdviceWithItsLine) {
  kiln::sync();
  kiln::reset_stats();
  Tensor w = kiln::ones({8});
  int line = 0;
  for (int i = 0; i < 150; ++i) {
    Tensor loss = (w * 0.5f).sum();
    line = __LINE__ + 1;
    (void)loss.item<float>();
  }
  std::ostringstream out;
  kiln::print_stats(out);
  const std::string text = out.str();
  EXPECT_TRUE(contains(text, "kiln report")) << text;
  EXPECT_TRUE(contains(text, "segment cut 150 times by item() at report_test.cpp:" + std::to_string(line) + " ("))
      << text;
  EXPECT_TRUE(contains(text, "us per segment): move it out of the loop")) << text;
  EXPECT_TRUE(contains(text, "where the trace was cut")) << text;
}

TEST(Report, QuietProgramsGetNoAdvice) {
  kiln::sync();
  kiln::reset_stats();
  (void)(kiln::ones({2}) + 1).sum().item<float>();
  std::ostringstream out;
  kiln::print_stats(out);
  EXPECT_FALSE(contains(out.str(), "advice")) << out.str();
}

TEST(Report, LongSegmentsCutOftenGetNoAdvice) {
  kiln::Stats s;
  s.segments_run = 200;
  s.top_keys = {{.key = 1, .runs = 200, .total_ms = 500}};  // 2.5 ms per segment: a cut costs little
  s.cut_sites = {{.reason = "item", .count = 200, .call_site = "train.cpp:42 (main)", .file = "train.cpp", .line = 42}};
  std::ostringstream out;
  kiln::profiler::write_report(out, s);
  EXPECT_TRUE(contains(out.str(), "train.cpp:42")) << out.str();
  EXPECT_FALSE(contains(out.str(), "advice")) << out.str();
}

TEST(Report, SaysWhenProfilingIsOff) {
  kiln::Stats s;
  s.profiling = false;
  std::ostringstream out;
  kiln::profiler::write_report(out, s);
  EXPECT_TRUE(contains(out.str(), "KILN_PROFILE=0")) << out.str();
}

}  // namespace

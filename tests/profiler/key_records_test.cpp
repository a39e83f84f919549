// Per-key records: runs and time per tier, the kernels' state and compile
// time, as a segment goes from tier 0 to compiled code.
#include <gtest/gtest.h>

#include <cstring>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;

class KeyRecordsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kiln::sync();
    kiln::reset_stats();
    kiln::jit::set_compile_sync(true);
    kiln::jit::set_hot_threshold(2);
  }
  void TearDown() override {
    kiln::jit::set_compile_sync(false);
    kiln::jit::set_hot_threshold(2);
  }
};

TEST_F(KeyRecordsTest, AHotKeyMovesToTierOneWithItsCompileTime) {
  Tensor x = kiln::rand({4096});
  kiln::sync();
  kiln::reset_stats();
  for (int i = 0; i < 6; ++i) {
    Tensor y = (x * 2.f + 1.f).tanh();
    (void)y.data_ptr<float>();
  }
  const kiln::Stats s = kiln::stats();
  ASSERT_FALSE(s.top_keys.empty());
  const kiln::KeyStats& k = s.top_keys[0];
  EXPECT_EQ(k.runs, 6u);
  EXPECT_EQ(k.runs_tier0 + k.runs_tier1, k.runs);
  EXPECT_GE(k.runs_tier1, 1u);  // compiled in the foreground once hot
  EXPECT_GE(k.runs_tier0, 1u);
  EXPECT_GT(k.tier0_ms, 0);
  EXPECT_GT(k.tier1_ms, 0);
  EXPECT_DOUBLE_EQ(k.total_ms, k.tier0_ms + k.tier1_ms);
  EXPECT_STREQ(k.state, "compiled");
  EXPECT_EQ(k.kernels, 1u);
  EXPECT_EQ(k.deopts, 0u);
  EXPECT_STREQ(k.first_reason, "data_ptr");

  // The log holds the compile, in order: queued, then compiled.
  int queued = -1, compiled = -1;
  for (std::size_t i = 0; i < s.recent_events.size(); ++i) {
    if (std::strcmp(s.recent_events[i].kind, "queued") == 0 && queued < 0) queued = static_cast<int>(i);
    if (std::strcmp(s.recent_events[i].kind, "compiled") == 0 && compiled < 0) compiled = static_cast<int>(i);
  }
  ASSERT_GE(queued, 0);
  ASSERT_GT(compiled, queued);
  EXPECT_EQ(s.recent_events[static_cast<std::size_t>(compiled)].detail, "O1");
  EXPECT_GT(s.recent_events[static_cast<std::size_t>(compiled)].duration_ms, 0);
  EXPECT_GT(k.compile_ms, 0);
}

TEST_F(KeyRecordsTest, TemporaryBytesAreSummedPerKey) {
  Tensor x = kiln::ones({256});
  kiln::sync();
  kiln::reset_stats();
  kiln::jit::set_enabled(false);
  for (int i = 0; i < 3; ++i) {
    Tensor total = ((x + 1.f) * 2.f).sum();  // the temporaries die before the cut: intermediates
    (void)total.item<float>();
  }
  const kiln::Stats s = kiln::stats();
  kiln::jit::set_enabled(true);
  ASSERT_EQ(s.top_keys.size(), 1u);
  EXPECT_STREQ(s.top_keys[0].state, "off");
  EXPECT_EQ(s.top_keys[0].runs_tier0, 3u);
  EXPECT_EQ(s.top_keys[0].bytes, s.intermediate_bytes);
  EXPECT_GT(s.top_keys[0].bytes, 0u);
}

}  // namespace

// Recompile storms: a read whose segment is a new key almost every time is
// found at its cut site, with why its key changes (op structure or only
// sizes), and the report says so.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include <kiln/kiln.h>

namespace {

// One cut site per loop: each loop reads at its own line.
float changing_ops(int i) {
  kiln::Tensor y = kiln::full({64}, 0.5);
  for (int k = 0; k < 7; ++k) y = (i >> k & 1) ? y.tanh() : y * 1.5;  // the bits of i pick the ops
  return y.sum().item<float>();
}

float changing_sizes(int i) { return (kiln::full({100 + i}, 0.5) * 2).exp().sum().item<float>(); }

const kiln::CutSiteStats* site_of(const kiln::Stats& s, const char* function) {
  for (const kiln::CutSiteStats& c : s.cut_sites)
    if (c.function.find(function) != std::string::npos) return &c;
  return nullptr;
}

TEST(RecompileStorm, IsFoundAtItsSiteWithWhyItsKeysChange) {
  kiln::jit::set_enabled(true);
  kiln::reset_stats();
  for (int i = 0; i < 70; ++i) (void)changing_ops(i);
  for (int i = 0; i < 70; ++i) (void)changing_sizes(i);
  const kiln::Stats s = kiln::stats();
  const kiln::CutSiteStats* ops = site_of(s, "changing_ops");
  const kiln::CutSiteStats* sizes = site_of(s, "changing_sizes");
  ASSERT_NE(ops, nullptr) << "no cut site names changing_ops (Release builds carry line tables)";
  ASSERT_NE(sizes, nullptr);
  // 2^7 structures, 70 calls: every call a new key.
  EXPECT_EQ(ops->new_keys, 70u);
  EXPECT_GT(ops->new_structures * 2, ops->new_keys);
  EXPECT_EQ(sizes->new_keys, 70u);
  EXPECT_EQ(sizes->new_structures, 0u);
  std::ostringstream report;
  kiln::print_stats(report);
  EXPECT_NE(report.str().find("recompile storm at"), std::string::npos) << report.str();
  EXPECT_NE(report.str().find("op sequence (ops, dtypes or attributes) kept changing"), std::string::npos);
  EXPECT_NE(report.str().find("their shapes kept changing"), std::string::npos);
}

}  // namespace

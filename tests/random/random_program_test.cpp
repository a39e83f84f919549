// Random programs: sequences of elementwise ops, broadcasting, views,
// in-place writes through aliases, reductions and small matmuls over random
// shapes, run by kiln and by the reference, compared at random mid-program
// reads and at the end. Each program comes from a fixed seed (printed with
// the program text on failure), so a failure reproduces exactly.
#include <gtest/gtest.h>

#include <string>

#include <kiln/kiln.h>

#include "tests/random/run_program.h"

namespace {

using rprog::run_program;

class RandomPrograms : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(RandomPrograms, AgreeWithTheReference) {
  const kiln::ScalarType dt = GetParam();
  const unsigned base = dt == kiln::kFloat64 ? 1000 : dt == kiln::kFloat32 ? 2000 : 3000;
  const int count = dt == kiln::kFloat64 ? 300 : 150;
  int failures = 0;
  for (int i = 0; i < count && failures < 3; ++i) {
    ::testing::AssertionResult r = run_program(base + i, dt);
    if (!r) ++failures;
    EXPECT_TRUE(r) << "reproduce with run_program(" << base + i << ", " << kiln::to_string(dt) << ")";
  }
}

TEST_P(RandomPrograms, RepeatedProgramsStayCorrectAsTheirSegmentsGetHot) {
  // The same program run again records the same segment keys, so they become hot and may
  // run compiled (tier 1) from some repetition on; every repetition must agree.
  const kiln::ScalarType dt = GetParam();
  for (unsigned seed = 5000; seed < 5020; ++seed) {
    for (int rep = 0; rep < 4; ++rep) {
      ::testing::AssertionResult r = run_program(seed, dt);
      ASSERT_TRUE(r) << "repetition " << rep << "; reproduce with run_program(" << seed << ", "
                     << kiln::to_string(dt) << ") run " << rep + 1 << " times";
    }
  }
}

TEST(RandomProgramsBackward, GradientsMatchCentralDifferences) {
  // Float64 programs with backward through a weighted sum of everything
  // live; some rightly refuse (a saved tensor written in place), most check.
  int checked_count = 0, failures = 0;
  constexpr int kCount = 300;
  for (unsigned seed = 7000; seed < 7000 + kCount && failures < 3; ++seed) {
    bool checked = false;
    ::testing::AssertionResult r = rprog::run_program_backward(seed, checked);
    if (!r) ++failures;
    EXPECT_TRUE(r) << "reproduce with run_program_backward(" << seed << ")";
    checked_count += checked;
  }
  EXPECT_GE(checked_count, kCount / 3) << "programs whose gradient was compared";
}

INSTANTIATE_TEST_SUITE_P(Dtypes, RandomPrograms, ::testing::Values(kiln::kFloat64, kiln::kFloat32, kiln::kInt64),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

}  // namespace

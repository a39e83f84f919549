// Random programs: sequences of elementwise ops, broadcasting, views,
// in-place writes through aliases, reductions and small matmuls over random
// shapes, run by kiln and by the reference, compared at random mid-program
// reads and at the end. Each program comes from a fixed seed (printed with
// the program text on failure), so a failure reproduces exactly.
#include <gtest/gtest.h>

#include <string>

#include <kiln/kiln.h>

#include "tests/random/generator.h"
#include "tests/random/random_inplace.h"
#include "tests/random/random_ops.h"
#include "tests/random/random_reduce.h"
#include "tests/random/random_views.h"

namespace {

using rprog::Program;

constexpr int kSteps = 40;

::testing::AssertionResult run_steps(Program& p) {
  for (int i = 0; i < 3; ++i) p.pool().push_back(p.leaf(p.random_shape()));
  for (int step = 0; step < kSteps; ++step) {
    if (p.pool().size() >= 10) p.drop_random();
    if (p.pool().empty()) p.pool().push_back(p.leaf(p.random_shape()));
    int what = p.rint(0, 99);
    if (what < 8) {
      p.pool().push_back(p.leaf(p.random_shape()));
    } else if (what < 22) {
      rprog::op_unary(p);
    } else if (what < 40) {
      rprog::op_binary(p);
    } else if (what < 52) {
      rprog::op_reduce(p);
    } else if (what < 58) {
      rprog::op_matmul(p);
    } else if (what < 76) {
      rprog::op_view(p);
    } else if (what < 92) {
      rprog::op_inplace(p);
    } else if (what < 97) {
      // a read in the middle of the program cuts the trace there
      const rprog::Entry& e = p.pick();
      p.log("read " + e.name);
      ::testing::AssertionResult r = p.check(e);
      if (!r) return r;
    } else {
      p.log("kiln::sync()");
      kiln::sync();
    }
  }
  return p.check_all();
}

/// Runs one program; a quarter of them with a tiny trace limit, so that
/// segments are cut between (and inside) composite ops.
::testing::AssertionResult run_program(unsigned seed, kiln::ScalarType dtype) {
  Program p(seed, dtype);
  const int limit = p.chance(0.25) ? p.rint(1, 5) : 0;
  if (limit) {
    kiln::set_trace_limit(limit);
    p.log("kiln::set_trace_limit(" + std::to_string(limit) + ")");
  }
  ::testing::AssertionResult result = ::testing::AssertionSuccess();
  try {
    result = run_steps(p);
  } catch (const std::exception& e) {
    result = p.fail(std::string("unexpected exception: ") + e.what());
  }
  if (limit) kiln::set_trace_limit(4096);
  return result;
}

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

INSTANTIATE_TEST_SUITE_P(Dtypes, RandomPrograms, ::testing::Values(kiln::kFloat64, kiln::kFloat32, kiln::kInt64),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

}  // namespace

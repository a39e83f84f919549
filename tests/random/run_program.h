// One random program: its steps, and a run of it from a seed. Shared by
// the tier-0 suite (tests/random) and the tier-1 suite (tests/random_tier1).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include <kiln/kiln.h>

#include "tests/random/generator.h"
#include "tests/random/random_inplace.h"
#include "tests/random/random_ops.h"
#include "tests/random/random_reduce.h"
#include "tests/random/random_views.h"

namespace rprog {

inline constexpr int kSteps = 40;

inline ::testing::AssertionResult run_steps(Program& p) {
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
inline ::testing::AssertionResult run_program(unsigned seed, kiln::ScalarType dtype) {
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

}  // namespace rprog

// One random program: its steps, and a run of it from a seed. Shared by
// the tier-0 suite (tests/random) and the tier-1 suite (tests/random_tier1).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>
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
inline ::testing::AssertionResult run_program(Program& p) {
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
inline ::testing::AssertionResult run_program(unsigned seed, kiln::ScalarType dtype) {
  Program p(seed, dtype);
  return run_program(p);
}

/// The scalar a gradient program differentiates: the sum over the live
/// pool of sum(entry * weights), the weights drawn from `seed` in pool order.
inline kiln::Tensor objective(Program& p, unsigned seed) {
  std::mt19937 gen(seed + 2);
  kiln::Tensor total = kiln::zeros({}, kiln::kFloat64);
  for (const Entry& e : p.pool()) {
    std::vector<double> w(e.ref.pos.size());
    for (double& x : w) x = std::uniform_real_distribution<double>(-1, 1)(gen);
    total = total + (e.t * kiln::tensor(w, kiln::kFloat64).reshape(e.ref.shape)).sum();
  }
  return total;
}

/// Program `seed` in float64, then backward through objective(): the
/// gradient along the leaves' random direction must match the central
/// difference of two more runs with every leaf moved by +-eps along it.
/// `checked` is false when backward refused as LibTorch does (the program
/// wrote in place into a tensor its gradient needs): there is nothing to
/// compare then.
inline ::testing::AssertionResult run_program_backward(unsigned seed, bool& checked) {
  constexpr double kEps = 1e-6;
  checked = false;
  Program p(seed, kiln::kFloat64);
  p.differentiate(true, 0);
  ::testing::AssertionResult r = run_program(p);
  if (!r) return r;
  try {
    objective(p, seed).backward();
  } catch (const kiln::AutogradError& e) {
    if (std::string(e.what()).find("modified by an inplace operation") != std::string::npos)
      return ::testing::AssertionSuccess();
    return p.fail(std::string("backward: ") + e.what());
  } catch (const std::exception& e) {
    return p.fail(std::string("backward: ") + e.what());
  }
  double analytic = 0;
  for (std::size_t k = 0; k < p.roots().size(); ++k) {
    if (!p.roots()[k].grad().defined()) continue;
    std::vector<double> g = p.roots()[k].grad().to_vector<double>();
    for (std::size_t i = 0; i < g.size(); ++i) analytic += g[i] * p.directions()[k][i];
  }
  double moved[2];
  for (int side = 0; side < 2; ++side) {
    Program q(seed, kiln::kFloat64);
    q.differentiate(false, side == 0 ? kEps : -kEps);
    kiln::NoGradGuard no_grad;
    r = run_program(q);
    if (!r) return r;
    moved[side] = objective(q, seed).item<double>();
  }
  const double numeric = (moved[0] - moved[1]) / (2 * kEps);
  checked = true;
  if (std::abs(numeric - analytic) <= 1e-5 * (1 + std::abs(numeric))) return ::testing::AssertionSuccess();
  std::ostringstream what;
  what << "directional derivative: backward " << analytic << ", central difference " << numeric;
  return p.fail(what.str());
}

}  // namespace rprog

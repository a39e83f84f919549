// Checks shared by the reduction tests on tier 1: that a program ran as
// one compiled kernel (and agreed with tier 0), and that a tensor matches
// a plain reference.
#pragma once

#include <gtest/gtest.h>

#include <cmath>

#include <kiln/kiln.h>

#include "jit/tier1/segment_jit.h"
#include "tests/common/reference.h"
#include "tests/jit_tier1/tiers.h"

namespace reduction_cases {

/// Tier 0 and tier 1 agree on `program` (tiers::tiers_agree), and on tier 1
/// its segment was fused into exactly one kernel holding every op it ran.
inline ::testing::AssertionResult one_kernel(const tiers::Program& program, double rel = 1e-5) {
  ::testing::AssertionResult agree = tiers::tiers_agree(program, rel);
  if (!agree) return agree;
  const std::shared_ptr<const kiln::jit::SegmentJit> s = kiln::jit::last_segment_jit();
  if (s == nullptr || !s->planned.load()) return ::testing::AssertionFailure() << "the segment was not planned";
  if (s->groups.size() != 1) {
    ::testing::AssertionResult r = ::testing::AssertionFailure() << s->groups.size() << " kernels:\n";
    for (const auto& g : s->groups) r << g.spec.to_string();
    return r;
  }
  if (s->groups[0].nodes.size() != s->needed_nodes)
    return ::testing::AssertionFailure() << s->groups[0].nodes.size() << " of " << s->needed_nodes
                                         << " ops fused:\n" << s->groups[0].spec.to_string();
  return ::testing::AssertionSuccess();
}

/// `t` has the shape and values of `want` (NaN matches NaN), within `rel`
/// of each value plus `rel` absolute.
inline ::testing::AssertionResult matches(const kiln::Tensor& t, const kref::Ref& want, double rel = 0) {
  const kref::Ref got = kref::of(t);
  if (got.shape != want.shape)
    return ::testing::AssertionFailure() << "shape " << kref::str(got.shape) << ", want " << kref::str(want.shape);
  for (std::size_t i = 0; i < got.v.size(); ++i) {
    const double a = got.v[i], b = want.v[i];
    if ((std::isnan(a) && std::isnan(b)) || a == b) continue;
    if (!(std::abs(a - b) <= rel * (std::abs(b) + 1)))
      return ::testing::AssertionFailure() << "element " << i << ": " << a << ", want " << b;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace reduction_cases

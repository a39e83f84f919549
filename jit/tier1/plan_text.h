// The plan of a segment key as text for people (`kiln explain KEY`): its
// ops in order, which fused group runs each, and each group's kernel key and
// spec. Made once per key when it is planned, so its cost does not matter.
#pragma once

#include "jit/tier1/segment_jit.h"
#include "profiler/key_plans.h"
#include "trace/segment.h"

namespace kiln::jit {

/// Describes the plan `s` holds for `segment` (call once `s` is planned).
profiler::KeyPlan describe_plan(const trace::Segment& segment, const SegmentJit& s);

}  // namespace kiln::jit

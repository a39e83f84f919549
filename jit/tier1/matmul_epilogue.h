// Running a matmul group (jit/fusion/epilogue.h): the tier-0 GEMM with the
// group's compiled elementwise kernel as its per-block epilogue.
#pragma once

#include <cstdint>

#include "jit/fusion/partition.h"
#include "trace/segment.h"

namespace kiln::jit {

/// Runs `group` (group.matmul set) with `fn`. `ptrs` is bound as for any
/// fused kernel, except the product input, which this fills in. False when
/// an output of the group shares memory with the matmul's operands (the
/// GEMM would read what the epilogue already wrote): run it on tier 0.
bool run_matmul_epilogue(trace::Segment& segment, const FusedGroup& group, CompiledFn fn, void** ptrs,
                         const std::int64_t* scalars);

/// Matmul groups run this way in this process (tests check that the fused
/// path really ran).
std::uint64_t matmul_epilogue_runs();

}  // namespace kiln::jit

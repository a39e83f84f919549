// What the JIT knows of a segment key, for the profiler's per-key records:
// the state of its kernels, their compile time and demotions.
#pragma once

#include <cstdint>

#include "profiler/counters.h"

namespace kiln::jit {

/// A profiler::KeyInspector (registered by the frontend at load time).
bool inspect_key(std::uint64_t segment_key, profiler::KeyJitInfo& out);

}  // namespace kiln::jit

// Running a compiled kernel over its whole range on the kernel threads,
// as its form and launch knobs ask (KernelSpec, KernelKnobs): elements or
// rows split into ranges of a grain, or a partial kernel's fixed chunks
// whose partial results are then combined.
#pragma once

#include <cstdint>

#include "jit/fusion/kernel_spec.h"

namespace kiln::jit {

/// Runs `fn`, compiled from `spec` (the caller's copy: this run's sizes),
/// with the CompiledFn arguments `ptrs` and `scalars`, split as `knobs` say
/// (the launch knobs `fn` was tuned with; by default the spec's).
void launch(const KernelSpec& spec, CompiledFn fn, void* const* ptrs, const std::int64_t* scalars,
            const KernelKnobs& knobs);
inline void launch(const KernelSpec& spec, CompiledFn fn, void* const* ptrs, const std::int64_t* scalars) {
  launch(spec, fn, ptrs, scalars, spec.knobs);
}

}  // namespace kiln::jit

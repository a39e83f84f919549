// Combining the partial results of a partial kernel (KernelSpec: reductions
// over every dim, each range of elements leaving its accumulator in a
// PartialSlot) into the reduction's output, in range order, with tier 0's
// semantics (jit/kernels/reduction.cpp).
#pragma once

#include <cstdint>

#include "jit/fusion/kernel_spec.h"

namespace kiln::jit {

/// Folds slots[0], slots[stride], ... (`count` of them, in order) and
/// writes the result, converted to `out_dtype`, to `out`.
void combine_partials(const KernelInstr& reduction, const PartialSlot* slots, std::int64_t stride,
                      std::int64_t count, void* out, ScalarType out_dtype);

}  // namespace kiln::jit

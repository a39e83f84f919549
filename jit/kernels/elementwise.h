// The elementwise driver: runs a contiguous inner loop over operands of any
// strides. Inputs arrive already broadcast to the output's shape (stride 0
// on broadcast dims). The driver coalesces dims, walks the output in
// row-major order, hands contiguous stretches straight to the loop, and
// stages strided or broadcast stretches through small stack buffers, so each
// op needs only one loop per dtype: `out[i] = f(in0[i], in1[i], ...)`,
// which GCC vectorizes. Work above kGrain elements is split over threads.
#pragma once

#include <cstdint>
#include <span>

#include "jit/kernels/kernel.h"

namespace kiln::jit::kernels {

/// Elements below which an elementwise kernel runs on the calling thread.
inline constexpr std::int64_t kElementwiseGrain = 32 * 1024;

/// An op's inner loop over `n` contiguous elements. `first` is the row-major
/// position of element 0 in the output (creation ops compute from it);
/// `params` is whatever the kernel passed to run_elementwise.
using ContiguousLoop = void (*)(const void* params, char* out, const char* const* in,
                                std::int64_t first, std::int64_t n);

void run_elementwise(const TensorArg& out, std::span<const TensorArg> in, ContiguousLoop loop,
                     const void* params = nullptr);

}  // namespace kiln::jit::kernels

// Converting copy between two views of the same shape, any dtypes: the Copy
// kernel, and the engine's tool for staging operands in temporary buffers.
#pragma once

#include "jit/kernels/kernel.h"

namespace kiln::jit::kernels {

/// dst[i] = convert<dst dtype>(src[i]); src may be broadcast (stride 0).
void copy_elements(const TensorArg& dst, const TensorArg& src);

}  // namespace kiln::jit::kernels

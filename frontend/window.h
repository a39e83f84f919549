// The im2col and col2im primitives with their gradient history, shared by
// nn::functional::unfold / fold, convolution and the two ops' gradients
// (each is the other's: col2im is im2col's adjoint).
#pragma once

#include <cstdint>

#include <kiln/frontend/tensor.h>

#include "trace/window.h"

namespace kiln::frontend {

/// [N, C, H, W] -> [N, C*kh*kw, oh*ow] (trace::im2col); `op` names the user's call in errors.
Tensor im2col(const Tensor& x, const trace::Window2d& window, const char* op);
/// [N, C*kh*kw, L] -> [N, C, size[0], size[1]], overlapping windows summed (trace::col2im).
Tensor col2im(const Tensor& columns, const std::int64_t size[2], const trace::Window2d& window, const char* op);

}  // namespace kiln::frontend

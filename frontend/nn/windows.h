// Sliding windows over the trailing spatial dims of [N, C, *spatial]: the
// shared lowering of convolution and pooling: output sizes, padding, and
// the windows as columns (one Im2col op) that a convolution multiplies in
// one GEMM and a pooling reduces across. Everything is built from
// differentiable ops, so the gradients come from theirs.
#pragma once

#include <cstdint>
#include <vector>

#include <kiln/frontend/tensor.h>

#include "trace/window.h"

namespace kiln::nn::detail {

struct WindowGeometry {
  std::vector<std::int64_t> kernel, stride, padding, dilation;
  bool ceil_mode = false;
};

/// Output size of each spatial dim; ShapeError naming `op` and the input
/// shape when a window does not fit.
std::vector<std::int64_t> output_sizes(const Tensor& input, const WindowGeometry& g, const char* op);

/// Pads the spatial dims of `x` with `value`: `before` and `after` elements
/// per dim (after also covers ceil_mode's last partial window).
Tensor pad_spatial(const Tensor& x, const std::vector<std::int64_t>& before, const std::vector<std::int64_t>& after,
                   double value);

/// `g` as Im2col's window: a 1-d window is a 2-d one of height 1. Without
/// `padding`, for an input padded already.
trace::Window2d window_2d(const WindowGeometry& g, bool padding);

/// The windows of `padded` (its padding already added) as [N, C, K, *out]:
/// element [n, c, k] is the slice at kernel offset k (row-major over the
/// kernel), taken by one Im2col op (frontend/window.h), whose gradient
/// sums back into `padded` with one Col2im.
Tensor window_columns(const Tensor& padded, const WindowGeometry& g, const std::vector<std::int64_t>& out,
                      const char* op);

/// A per-spatial-dim argument of a free function: one element applies to
/// every dim; an empty list takes `fallback` (pooling's stride: the kernel).
std::vector<std::int64_t> per_dim(IntArrayRef v, std::size_t spatial, IntArrayRef fallback, const char* what,
                                  const char* op);

/// The padding after each spatial dim that makes every output window fit.
std::vector<std::int64_t> padding_after(const Tensor& input, const WindowGeometry& g,
                                        const std::vector<std::int64_t>& out);

}  // namespace kiln::nn::detail

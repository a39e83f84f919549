// Packing for the packed GEMM (gemm_float.cpp): slices of A and B copied
// into the depth-major micro-panels its micro-kernel reads.
#pragma once

#include <cstdint>

#include "jit/kernels/gemm.h"

namespace kiln::jit::kernels {

/// Panels first_panel..end_panel of `width` rows of the slice `src`
/// (src(r, k) = row r, depth k), laid out depth-major: dst[p][k][r]; rows
/// past `rows` are zero.
template <class T>
void pack_panels(T* dst, MatrixRef<const T> src, std::int64_t rows, std::int64_t depth, int width,
                 std::int64_t first_panel, std::int64_t end_panel);

}  // namespace kiln::jit::kernels

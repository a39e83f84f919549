// Rows of window planes (im2col's columns, col2im's image) moved with
// AVX-512 masks. The rows of a CNN's window planes are short (7-28
// windows: 2x2 pooling of a 14-wide image has 7 a row), and a compiled loop
// over so few spends more on its remainder and set-up than on its vectors:
// im2col of that pooling took about 10 ns a 7-window row. A masked vector
// takes a row of up to 16 windows in one step, its stride-2 reads (pooling)
// included. Float only; callers check cpu_has_avx512f_fma() first.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln::jit::kernels {

/// `rows` rows of `width` windows, row r at out + r * width: windows
/// [lo, hi) take in[r * in_row_step + (t - lo) * step] for window t, the
/// others zero. step is 1 or 2.
void copy_window_rows_avx512(float* out, std::int64_t width, const float* in, std::int64_t in_row_step,
                             std::int64_t step, std::int64_t rows, std::int64_t lo, std::int64_t hi);

/// col2im's geometry for fold_plane_avx512, worked out once a call.
struct FoldRows {
  std::int64_t height = 0, width = 0;  // the image plane; its elements adjacent
  std::int64_t image_row_stride = 0;
  std::int64_t kernel_rows = 0, kernel_cols = 0;
  std::int64_t windows_per_row = 0;    // ow: column oy * ow + ox is window (oy, ox)
  std::int64_t column_row_stride = 0;  // columns: offset (i, j)'s row at (i * kernel_cols + j) * this
  // [i * height + y]: the row of windows of kernel row i that reads image
  // row y, or -1.
  std::vector<std::int64_t> window_row;
  // [j * chunks + q], chunks = ceil(width / 16): what kernel column j adds
  // to image columns [16q, 16q + 16): the columns' elements from `first`
  // (relative to the row of windows, may be negative) under mask `load`,
  // spread over the lanes (window t to lanes 2t and 2t + 1 when windows
  // are two elements apart), added under mask `add`.
  struct Lanes {
    std::int64_t first = 0;
    std::uint16_t load = 0, add = 0;
  };
  std::vector<Lanes> lanes;
  bool two_apart = false;  // windows two image elements apart (else adjacent)
};

/// One plane of col2im: image[y][x] = the sum, over kernel offsets in
/// order, of the column elements of the windows reading (y, x). Each image
/// row is summed in registers and stored once: adding offset by offset into
/// memory, each masked load waited for the masked store an offset before it
/// had written to the same elements one lane over (no store forwarding),
/// and the 3x3 col2im of [32, 16, 14, 14] took 540 us.
void fold_plane_avx512(const FoldRows& f, float* image, const float* columns);

}  // namespace kiln::jit::kernels

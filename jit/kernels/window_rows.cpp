#include "jit/kernels/window_rows.h"

#include <immintrin.h>

#include <algorithm>

namespace kiln::jit::kernels {
namespace {

constexpr __mmask16 kEvenLanes = 0x5555;

// Lanes [0, n) of 16.
inline __mmask16 first_lanes(std::int64_t n) {
  return n <= 0 ? 0 : n >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << n) - 1);
}

// Elements in[t * step] for t < n <= 16, zero past n; the loads touch only
// the elements read (masked), so a row may end at the end of its buffer.
[[gnu::target("avx512f"), gnu::always_inline]] inline __m512 load_row(const float* in, std::int64_t step,
                                                                      std::int64_t n) {
  if (step == 1) return _mm512_maskz_loadu_ps(first_lanes(n), in);
  const __m512 low = _mm512_maskz_loadu_ps(kEvenLanes & first_lanes(2 * n), in);
  const __m512 high = _mm512_maskz_loadu_ps(kEvenLanes & first_lanes(2 * n - 16), in + 16);
  const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  return _mm512_permutex2var_ps(low, evens, high);
}

}  // namespace

[[gnu::target("avx512f")]] void copy_window_rows_avx512(float* out, std::int64_t width, const float* in,
                                                        std::int64_t in_row_step, std::int64_t step,
                                                        std::int64_t rows, std::int64_t lo, std::int64_t hi) {
  for (std::int64_t r = 0; r < rows; ++r, out += width, in += in_row_step) {
    for (std::int64_t t = 0; t < lo; ++t) out[t] = 0.0f;
    for (std::int64_t t = lo; t < hi; t += 16) {
      const std::int64_t n = std::min<std::int64_t>(16, hi - t);
      _mm512_mask_storeu_ps(out + t, first_lanes(n), load_row(in + (t - lo) * step, step, n));
    }
    for (std::int64_t t = hi; t < width; ++t) out[t] = 0.0f;
  }
}

[[gnu::target("avx512f")]] void fold_plane_avx512(const FoldRows& f, float* image, const float* columns) {
  const __m512i adjacent = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i spread = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
  const __m512i order = f.two_apart ? spread : adjacent;
  const std::int64_t chunks = (f.width + 15) / 16;
  for (std::int64_t y = 0; y < f.height; ++y) {
    for (std::int64_t q = 0; q < chunks; ++q) {
      __m512 sum = _mm512_setzero_ps();
      for (std::int64_t i = 0; i < f.kernel_rows; ++i) {
        const std::int64_t oy = f.window_row[i * f.height + y];
        if (oy < 0) continue;
        const float* row = columns + i * f.kernel_cols * f.column_row_stride + oy * f.windows_per_row;
        for (std::int64_t j = 0; j < f.kernel_cols; ++j, row += f.column_row_stride) {
          const FoldRows::Lanes& l = f.lanes[j * chunks + q];
          const __m512 v = _mm512_maskz_permutexvar_ps(l.add, order, _mm512_maskz_loadu_ps(l.load, row + l.first));
          sum = _mm512_mask_add_ps(sum, l.add, sum, v);
        }
      }
      _mm512_mask_storeu_ps(image + y * f.image_row_stride + 16 * q, first_lanes(f.width - 16 * q), sum);
    }
  }
}

}  // namespace kiln::jit::kernels

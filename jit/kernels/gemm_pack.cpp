// The loops walk the source in its memory order. Where its rows are
// adjacent (B of a row-major product: B's columns are packed as rows of
// Bᵀ), one depth step of every panel is copied before the next, so each
// row of B is read front to back (per panel instead, each depth step read
// one cache line of another row, and packing took a quarter of a
// 256x3072x768 product). Where each row is contiguous along the depth (A
// of a row-major product, a linear layer's weight), the source is a
// transpose of the panels: float rows go through 8x8 blocks transposed in
// AVX2 registers, for panels of 6 rows (A) or a multiple of 8 (B) (the
// scalar copy, one strided store per element, was 41% of a 32x512x512
// linear layer's time on one thread).
#include "jit/kernels/gemm_pack.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <immintrin.h>

namespace kiln::jit::kernels {
namespace {

// The source of a pack is rarely in cache in a training step (a weight
// the optimizer wrote, an activation from the forward): the loads waited
// on memory, 58% of pack_panels' samples in an MLP's forward and backward
// on the store after them. So lines are asked for ahead of their use:
// along the depth, kPrefetchSteps steps ahead where a step is a
// contiguous span (copied panels), kPrefetchLines lines ahead within each
// row where rows run along the depth (transposed panels).
constexpr std::int64_t kPrefetchSteps = 8;
constexpr std::int64_t kPrefetchLines = 8;

// Asks for the cache lines of [p, p + bytes).
inline void prefetch_span(const void* p, std::int64_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (std::int64_t off = 0; off < bytes; off += 64) __builtin_prefetch(c + off);
}

// Asks for the line `elements` floats past `s`, which may lie past the
// source's end (a prefetch never faults): computed as an integer.
inline void prefetch_at(const float* s, std::int64_t elements) {
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(s) +
                                                   static_cast<std::uintptr_t>(elements) * sizeof(float)));
}

// The first `Lanes` (8, or 6: the A panels' rows) floats of `v` to `out`.
template <int Lanes>
[[gnu::target("avx2")]] inline void store_lanes(float* out, __m256 v) {
  if constexpr (Lanes == 8) {
    _mm256_storeu_ps(out, v);
  } else {
    static_assert(Lanes == 6);
    _mm_storeu_ps(out, _mm256_castps256_ps128(v));
    _mm_storel_pi(reinterpret_cast<__m64*>(out + 4), _mm256_extractf128_ps(v, 1));
  }
}

// Rows r0..r0+Lanes of a row-contiguous float source (`valid` of them
// real, the rest zero), depth steps k0..k0+8, stored transposed at
// out[k * width + j] for k < 8, j < Lanes.
template <int Lanes>
[[gnu::target("avx2")]] inline void transpose_block(float* out, std::int64_t width, const float* s,
                                                    std::int64_t row_stride, std::int64_t valid) {
  __m256 r[8];
  for (int i = 0; i < 8; ++i) r[i] = i < valid ? _mm256_loadu_ps(s + i * row_stride) : _mm256_setzero_ps();
  __m256 t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int j = 0; j < 4; ++j) {
    store_lanes<Lanes>(out + j * width, _mm256_permute2f128_ps(u[j], u[j + 4], 0x20));
    store_lanes<Lanes>(out + (j + 4) * width, _mm256_permute2f128_ps(u[j], u[j + 4], 0x31));
  }
}

// One panel of a row-contiguous float source; width a multiple of 8, or 6.
[[gnu::target("avx2")]] void pack_transposed_avx2(float* panel, const float* s, std::int64_t row_stride,
                                                  std::int64_t valid, std::int64_t depth, int width) {
  const std::int64_t blocked = depth / 8 * 8;
  for (std::int64_t k = 0; k < blocked; k += 8) {
    if (k % 16 == 0) {  // once per line of each row; past the depth, into the next panel's rows
      const std::int64_t ahead = k + 16 * kPrefetchLines;
      for (std::int64_t r = 0; r < width; ++r)
        prefetch_at(s, ahead < depth ? r * row_stride + ahead : (r + width) * row_stride + ahead - depth);
    }
    if (width == 6) {
      transpose_block<6>(panel + k * width, width, s + k, row_stride, valid);
      continue;
    }
    for (int r = 0; r < width; r += 8)
      transpose_block<8>(panel + k * width + r, width, s + r * row_stride + k, row_stride,
                         std::max<std::int64_t>(0, valid - r));
  }
  for (std::int64_t k = blocked; k < depth; ++k)
    for (int r = 0; r < width; ++r) panel[k * width + r] = r < valid ? s[r * row_stride + k] : 0.0f;
}

bool avx2_transpose(int width) {
  const GemmVariant v = current_gemm_variant();
  return (width % 8 == 0 || width == 6) && (v == GemmVariant::Avx2 || v == GemmVariant::Avx512);
}

// The panels of a source read along the panels' rows (B of a row-major
// product; A read transposed, a weight gradient's dY^T): for each depth
// step, a copy per panel. `Bytes` is a full panel row's size, known to the
// compiler so that each copy is inlined as vector moves (0: any width,
// through memcpy). A libc memcpy call per 64 bytes was 7% of an MLP
// training step; per 24-byte A row, 1.6% of its forward and backward; and
// choosing the copy per row by its width, 13% of the copy loop's samples.
template <int Bytes, class T>
void copy_panels(T* dst, MatrixRef<const T> src, std::int64_t rows, std::int64_t depth, int width,
                 std::int64_t first_panel, std::int64_t end_panel) {
  const std::size_t row_bytes = Bytes > 0 ? Bytes : static_cast<std::size_t>(width) * sizeof(T);
  const std::int64_t span_rows = std::min(rows, end_panel * width) - first_panel * width;
  for (std::int64_t k = 0; k < depth; ++k) {
    if (src.row_stride == 1 && k + kPrefetchSteps < depth)
      prefetch_span(&src.at(first_panel * width, k + kPrefetchSteps), span_rows * sizeof(T));
    for (std::int64_t p = first_panel; p < end_panel; ++p) {
      T* out = dst + (p * depth + k) * width;
      const std::int64_t r0 = p * width, valid = std::min<std::int64_t>(width, rows - r0);
      const T* s = &src.at(r0, k);
      if (src.row_stride == 1 && valid == width)
        std::memcpy(out, s, row_bytes);
      else if (src.row_stride == 1)
        std::memcpy(out, s, static_cast<std::size_t>(valid) * sizeof(T));
      else
        for (std::int64_t r = 0; r < valid; ++r) out[r] = s[r * src.row_stride];
      for (std::int64_t r = valid; r < width; ++r) out[r] = T(0);
    }
  }
}

// copy_panels for the width of every register tile's panels: B panels of
// 1-4 vectors (32-256 bytes), A panels of 1-8 rows.
template <class T>
void copy_panels_of_width(T* dst, MatrixRef<const T> src, std::int64_t rows, std::int64_t depth, int width,
                          std::int64_t first_panel, std::int64_t end_panel) {
  auto copy = [&]<int Bytes>() { copy_panels<Bytes>(dst, src, rows, depth, width, first_panel, end_panel); };
  switch (width * static_cast<int>(sizeof(T))) {
    case 4: return copy.template operator()<4>();
    case 8: return copy.template operator()<8>();
    case 12: return copy.template operator()<12>();
    case 16: return copy.template operator()<16>();
    case 20: return copy.template operator()<20>();
    case 24: return copy.template operator()<24>();
    case 28: return copy.template operator()<28>();
    case 32: return copy.template operator()<32>();
    case 40: return copy.template operator()<40>();
    case 48: return copy.template operator()<48>();
    case 56: return copy.template operator()<56>();
    case 64: return copy.template operator()<64>();
    case 96: return copy.template operator()<96>();
    case 128: return copy.template operator()<128>();
    case 192: return copy.template operator()<192>();
    case 256: return copy.template operator()<256>();
    default: return copy.template operator()<0>();
  }
}

}  // namespace

template <class T>
void pack_panels(T* dst, MatrixRef<const T> src, std::int64_t rows, std::int64_t depth, int width,
                 std::int64_t first_panel, std::int64_t end_panel) {
  if (src.row_stride <= src.col_stride) return copy_panels_of_width(dst, src, rows, depth, width, first_panel, end_panel);
  const bool vector = std::is_same_v<T, float> && src.col_stride == 1 && avx2_transpose(width);
  for (std::int64_t p = first_panel; p < end_panel; ++p) {
    T* panel = dst + p * width * depth;
    const std::int64_t r0 = p * width, valid = std::min<std::int64_t>(width, rows - r0);
    if constexpr (std::is_same_v<T, float>)
      if (vector) {
        pack_transposed_avx2(panel, &src.at(r0, 0), src.row_stride, valid, depth, width);
        continue;
      }
    for (std::int64_t r = 0; r < width; ++r) {
      if (r >= valid) {
        for (std::int64_t k = 0; k < depth; ++k) panel[k * width + r] = T(0);
        continue;
      }
      const T* s = &src.at(r0 + r, 0);
      for (std::int64_t k = 0; k < depth; ++k) panel[k * width + r] = s[k * src.col_stride];
    }
  }
}

template void pack_panels<float>(float*, MatrixRef<const float>, std::int64_t, std::int64_t, int, std::int64_t,
                                 std::int64_t);
template void pack_panels<double>(double*, MatrixRef<const double>, std::int64_t, std::int64_t, int, std::int64_t,
                                  std::int64_t);

}  // namespace kiln::jit::kernels

#include "jit/kernels/gemm_few_rows.h"

#include <algorithm>
#include <cstring>

#include "jit/kernels/parallel.h"

namespace kiln::jit::kernels {
namespace {

template <class T>
struct FewRows {
  std::int64_t m, k;
  MatrixRef<const T> a, b;
  MatrixRef<T> c;
};

// The two loops, register-blocked over R rows of A and C columns (dots) or
// C vectors of columns (axpys) of the product, so that each value loaded
// feeds several multiply-adds: 8 accumulators, enough to cover the FMA's
// latency, at most 6 loads per 8 FMAs. Written once with GCC vector
// extensions of `Bytes` and inlined into functions carrying the ISA's
// target attribute, as the packed micro-kernel is (gemm_microkernel.h).
template <class T, int Bytes>
struct FewRowsLoops {
  static constexpr int kLanes = Bytes / static_cast<int>(sizeof(T));
  typedef T Vec __attribute__((vector_size(Bytes)));

  // Through references: a vector returned or passed by value would have
  // the ABI of the library's baseline ISA.
  [[gnu::always_inline]] static inline void load(Vec& v, const T* p) { std::memcpy(&v, p, sizeof(Vec)); }
  [[gnu::always_inline]] static inline void store(T* p, const Vec& v) { std::memcpy(p, &v, sizeof(Vec)); }

  // Columns per block for R rows: 8 accumulators (6 for 3 rows).
  static constexpr int columns_for(int rows) { return rows >= 3 ? 2 : 8 / rows; }

  // B's columns contiguous: C[i0.., j0..] of R x C dot products along k,
  // a vector of partial sums each, added up at the end.
  template <int R, int C>
  [[gnu::always_inline]] static inline void dot_block(const FewRows<T>& p, std::int64_t i0, std::int64_t j0) {
    const T* a[R];
    const T* b[C];
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) a[r] = p.a.data + (i0 + r) * p.a.row_stride;
    #pragma GCC unroll 16
    for (int c = 0; c < C; ++c) b[c] = p.b.data + (j0 + c) * p.b.col_stride;
    Vec acc[R][C] = {};
    std::int64_t kk = 0;
    for (; kk + kLanes <= p.k; kk += kLanes) {
      Vec bv[C];
      #pragma GCC unroll 16
      for (int c = 0; c < C; ++c) load(bv[c], b[c] + kk);
      #pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        Vec av;
        load(av, a[r] + kk);
        #pragma GCC unroll 16
        for (int c = 0; c < C; ++c) acc[r][c] += av * bv[c];
      }
    }
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
      #pragma GCC unroll 16
      for (int c = 0; c < C; ++c) {
        T sum = 0;
        #pragma GCC unroll 16
        for (int l = 0; l < kLanes; ++l) sum += acc[r][c][l];
        for (std::int64_t t = kk; t < p.k; ++t) sum += a[r][t] * b[c][t];
        p.c.at(i0 + r, j0 + c) = sum;
      }
  }

  template <int R>
  [[gnu::always_inline]] static inline void dot_rows(const FewRows<T>& p, std::int64_t i0, std::int64_t j0,
                                                     std::int64_t j1) {
    constexpr int C = columns_for(R);
    std::int64_t j = j0;
    for (; j + C <= j1; j += C) dot_block<R, C>(p, i0, j);
    for (; j < j1; ++j) dot_block<R, 1>(p, i0, j);
  }

  // B's and C's rows contiguous: C[i0.., j0..] as R x C vectors, each
  // accumulating a broadcast element of A times a vector of B's row k.
  template <int R, int C>
  [[gnu::always_inline]] static inline void axpy_block(const FewRows<T>& p, std::int64_t i0, std::int64_t j0) {
    const T* a[R];
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) a[r] = p.a.data + (i0 + r) * p.a.row_stride;
    Vec acc[R][C] = {};
    for (std::int64_t kk = 0; kk < p.k; ++kk) {
      const T* bk = p.b.data + kk * p.b.row_stride + j0;
      Vec bv[C];
      #pragma GCC unroll 16
      for (int c = 0; c < C; ++c) load(bv[c], bk + c * kLanes);
      #pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const T ar = a[r][kk];
        #pragma GCC unroll 16
        for (int c = 0; c < C; ++c) acc[r][c] += ar * bv[c];
      }
    }
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
      #pragma GCC unroll 16
      for (int c = 0; c < C; ++c) store(p.c.data + (i0 + r) * p.c.row_stride + j0 + c * kLanes, acc[r][c]);
  }

  // The columns past the last whole vector: one dot product per element,
  // B's rows read with their stride.
  [[gnu::always_inline]] static inline void axpy_tail(const FewRows<T>& p, std::int64_t i0, int rows,
                                                      std::int64_t j0, std::int64_t j1) {
    for (int r = 0; r < rows; ++r) {
      const T* ar = p.a.data + (i0 + r) * p.a.row_stride;
      for (std::int64_t j = j0; j < j1; ++j) {
        T sum = 0;
        for (std::int64_t kk = 0; kk < p.k; ++kk) sum += ar[kk] * p.b.data[kk * p.b.row_stride + j];
        p.c.at(i0 + r, j) = sum;
      }
    }
  }

  template <int R>
  [[gnu::always_inline]] static inline void axpy_rows(const FewRows<T>& p, std::int64_t i0, std::int64_t j0,
                                                      std::int64_t j1) {
    constexpr int C = columns_for(R);
    std::int64_t j = j0;
    for (; j + C * kLanes <= j1; j += C * kLanes) axpy_block<R, C>(p, i0, j);
    for (; j + kLanes <= j1; j += kLanes) axpy_block<R, 1>(p, i0, j);
    axpy_tail(p, i0, R, j, j1);
  }

  // Columns in chunks whose part of B (about 128 KiB) stays in L2 while
  // every block of rows reads it, a multiple of the widest block; rows 4
  // at a time, the last block 1-3.
  template <bool kDots>
  [[gnu::always_inline]] static inline void columns(const FewRows<T>& p, std::int64_t j0, std::int64_t j1) {
    constexpr std::int64_t kChunkBytes = 128 << 10, kWidest = kDots ? columns_for(1) : columns_for(1) * kLanes;
    const std::int64_t column_bytes = std::max<std::int64_t>(1, p.k * std::int64_t(sizeof(T)));
    const std::int64_t chunk = std::max(kWidest, kChunkBytes / column_bytes / kWidest * kWidest);
    for (std::int64_t c0 = j0; c0 < j1; c0 += chunk) {
      const std::int64_t c1 = std::min(j1, c0 + chunk);
      for (std::int64_t i = 0; i < p.m; i += 4) {
        switch (std::min<std::int64_t>(4, p.m - i)) {
          case 4: kDots ? dot_rows<4>(p, i, c0, c1) : axpy_rows<4>(p, i, c0, c1); break;
          case 3: kDots ? dot_rows<3>(p, i, c0, c1) : axpy_rows<3>(p, i, c0, c1); break;
          case 2: kDots ? dot_rows<2>(p, i, c0, c1) : axpy_rows<2>(p, i, c0, c1); break;
          default: kDots ? dot_rows<1>(p, i, c0, c1) : axpy_rows<1>(p, i, c0, c1); break;
        }
      }
    }
  }

  [[gnu::always_inline]] static inline void run(const FewRows<T>& p, bool by_dots, std::int64_t j0, std::int64_t j1) {
    by_dots ? columns<true>(p, j0, j1) : columns<false>(p, j0, j1);
  }
};

template <class T>
void run_baseline(const FewRows<T>& p, bool by_dots, std::int64_t j0, std::int64_t j1) {
  FewRowsLoops<T, 16>::run(p, by_dots, j0, j1);
}
template <class T>
[[gnu::target("avx512f,fma")]] void run_avx512(const FewRows<T>& p, bool by_dots, std::int64_t j0, std::int64_t j1) {
  FewRowsLoops<T, 64>::run(p, by_dots, j0, j1);
}
template <class T>
[[gnu::target("avx2,fma")]] void run_avx2(const FewRows<T>& p, bool by_dots, std::int64_t j0, std::int64_t j1) {
  FewRowsLoops<T, 32>::run(p, by_dots, j0, j1);
}

template <class T>
bool few_rows(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const T> a, MatrixRef<const T> b,
              MatrixRef<T> c, const GemmEpilogue* epilogue, GemmVariant variant) {
  if (a.col_stride != 1) return false;
  const bool by_dots = b.row_stride == 1;
  if (!by_dots && (b.col_stride != 1 || c.col_stride != 1)) return false;
  auto* fn = variant == GemmVariant::Avx512 ? &run_avx512<T>
             : variant == GemmVariant::Avx2 ? &run_avx2<T>
                                            : &run_baseline<T>;
  // Split over whichever gives more tasks: columns in 64s (a handful of
  // rows), or rows in 32s, a multiple of the 4-row block (a few columns: a
  // classifier head, whose 10 columns would be one task).
  const bool parallel = m * n * k >= kGemmParallelWork;
  if ((m + 31) / 32 > (n + 63) / 64) {
    parallel_ranges((m + 3) / 4, parallel ? 8 : (m + 3) / 4, [&](std::int64_t q0, std::int64_t q1) {
      const std::int64_t i0 = 4 * q0, rows = std::min(m, 4 * q1) - i0;
      const FewRows<T> p{rows, k, {a.data + i0 * a.row_stride, a.row_stride, a.col_stride}, b,
                         {c.data + i0 * c.row_stride, c.row_stride, c.col_stride}};
      fn(p, by_dots, 0, n);
      if (epilogue) epilogue->fn(epilogue->context, i0, rows, 0, n);
    });
    return true;
  }
  const FewRows<T> p{m, k, a, b, c};
  parallel_ranges(n, parallel ? 64 : n, [&](std::int64_t j0, std::int64_t j1) {
    fn(p, by_dots, j0, j1);
    if (epilogue) epilogue->fn(epilogue->context, 0, m, j0, j1 - j0);
  });
  return true;
}

}  // namespace

bool gemm_few_rows(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const float> a,
                   MatrixRef<const float> b, MatrixRef<float> c, const GemmEpilogue* epilogue, GemmVariant variant) {
  return few_rows(m, n, k, a, b, c, epilogue, variant);
}
bool gemm_few_rows(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const double> a,
                   MatrixRef<const double> b, MatrixRef<double> c, const GemmEpilogue* epilogue,
                   GemmVariant variant) {
  return few_rows(m, n, k, a, b, c, epilogue, variant);
}

}  // namespace kiln::jit::kernels

#include "jit/kernels/gemm_few_rows.h"

#include <algorithm>

#include "jit/kernels/parallel.h"

namespace kiln::jit::kernels {
namespace {

// Below this many multiply-adds the product runs on the calling thread.
// Independent partial sums per dot product: wide enough for two 512-bit
// vectors of floats, so the compiler vectorizes the loop without
// reassociating it.
constexpr int kLanes = 32;

template <class T>
struct FewRows {
  std::int64_t m, k;
  MatrixRef<const T> a, b;
  MatrixRef<T> c;
};

// Columns [j0, j1) of C, B's columns contiguous: one dot product per (i, j),
// each column of B read once for all rows of A.
template <class T>
[[gnu::always_inline]] inline void dots(const FewRows<T>& p, std::int64_t j0, std::int64_t j1) {
  for (std::int64_t j = j0; j < j1; ++j) {
    const T* bj = p.b.data + j * p.b.col_stride;
    for (std::int64_t i = 0; i < p.m; ++i) {
      const T* ai = p.a.data + i * p.a.row_stride;
      T acc[kLanes] = {};
      std::int64_t kk = 0;
      for (; kk + kLanes <= p.k; kk += kLanes)
        for (int l = 0; l < kLanes; ++l) acc[l] += ai[kk + l] * bj[kk + l];
      T sum = 0;
      for (; kk < p.k; ++kk) sum += ai[kk] * bj[kk];
      for (int l = 0; l < kLanes; ++l) sum += acc[l];
      p.c.at(i, j) = sum;
    }
  }
}

// Columns [j0, j1) of C, B's and C's rows contiguous: C's rows accumulate
// a scaled row of B per depth step.
template <class T>
[[gnu::always_inline]] inline void axpys(const FewRows<T>& p, std::int64_t j0, std::int64_t j1) {
  for (std::int64_t i = 0; i < p.m; ++i) std::fill(p.c.data + i * p.c.row_stride + j0, p.c.data + i * p.c.row_stride + j1, T(0));
  for (std::int64_t kk = 0; kk < p.k; ++kk) {
    const T* bk = p.b.data + kk * p.b.row_stride;
    for (std::int64_t i = 0; i < p.m; ++i) {
      const T s = p.a.data[i * p.a.row_stride + kk];
      T* ci = p.c.data + i * p.c.row_stride;
      for (std::int64_t j = j0; j < j1; ++j) ci[j] += s * bk[j];
    }
  }
}

template <class T>
void run(const FewRows<T>& p, bool by_dots, std::int64_t j0, std::int64_t j1) {
  by_dots ? dots(p, j0, j1) : axpys(p, j0, j1);
}
template <class T>
[[gnu::target("avx512f,fma")]] void run_avx512(const FewRows<T>& p, bool by_dots, std::int64_t j0, std::int64_t j1) {
  by_dots ? dots(p, j0, j1) : axpys(p, j0, j1);
}
template <class T>
[[gnu::target("avx2,fma")]] void run_avx2(const FewRows<T>& p, bool by_dots, std::int64_t j0, std::int64_t j1) {
  by_dots ? dots(p, j0, j1) : axpys(p, j0, j1);
}

template <class T>
bool few_rows(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const T> a, MatrixRef<const T> b,
              MatrixRef<T> c, const GemmEpilogue* epilogue, GemmVariant variant) {
  if (a.col_stride != 1) return false;
  const bool by_dots = b.row_stride == 1;
  if (!by_dots && (b.col_stride != 1 || c.col_stride != 1)) return false;
  auto* fn = variant == GemmVariant::Avx512 ? &run_avx512<T> : variant == GemmVariant::Avx2 ? &run_avx2<T> : &run<T>;
  const FewRows<T> p{m, k, a, b, c};
  const std::int64_t grain = m * n * k >= kGemmParallelWork ? 64 : n;
  parallel_ranges(n, grain, [&](std::int64_t j0, std::int64_t j1) {
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

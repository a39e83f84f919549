// Integer GEMM: a plain blocked loop in unsigned arithmetic, so products
// and sums wrap in two's complement like the elementwise integer ops.
#include <algorithm>

#include "jit/kernels/gemm.h"
#include "jit/kernels/parallel.h"
#include "jit/kernels/wrapping.h"

namespace kiln::jit::kernels {
namespace {

constexpr std::int64_t kDepthBlock = 256;   // rows of B reused from cache per pass over C's row
constexpr std::int64_t kWidthBlock = 1024;  // columns of C kept in L1 while k runs

template <class T>
void gemm_rows(std::int64_t row_begin, std::int64_t row_end, std::int64_t n, std::int64_t k,
               MatrixRef<const T> a, MatrixRef<const T> b, MatrixRef<T> c) {
  using U = Unsigned<T>;
  for (std::int64_t j0 = 0; j0 < n; j0 += kWidthBlock) {
    const std::int64_t j1 = std::min(n, j0 + kWidthBlock);
    for (std::int64_t i = row_begin; i < row_end; ++i)
      for (std::int64_t j = j0; j < j1; ++j) c.at(i, j) = 0;
    for (std::int64_t p0 = 0; p0 < k; p0 += kDepthBlock) {
      const std::int64_t p1 = std::min(k, p0 + kDepthBlock);
      for (std::int64_t i = row_begin; i < row_end; ++i)
        for (std::int64_t p = p0; p < p1; ++p) {
          const U aip = static_cast<U>(a.at(i, p));
          for (std::int64_t j = j0; j < j1; ++j)
            c.at(i, j) = static_cast<T>(static_cast<U>(c.at(i, j)) + aip * static_cast<U>(b.at(p, j)));
        }
    }
  }
}

template <class T>
void gemm_integral(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const T> a, MatrixRef<const T> b,
                   MatrixRef<T> c) {
  const std::int64_t grain = std::max<std::int64_t>(1, (std::int64_t{1} << 18) / std::max<std::int64_t>(1, n * k));
  parallel_ranges(m, grain, [&](std::int64_t begin, std::int64_t end) { gemm_rows(begin, end, n, k, a, b, c); });
}

}  // namespace

void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const std::int32_t> a,
          MatrixRef<const std::int32_t> b, MatrixRef<std::int32_t> c) {
  gemm_integral(m, n, k, a, b, c);
}
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const std::int64_t> a,
          MatrixRef<const std::int64_t> b, MatrixRef<std::int64_t> c) {
  gemm_integral(m, n, k, a, b, c);
}

}  // namespace kiln::jit::kernels

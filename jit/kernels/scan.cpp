// cumsum, cumprod and argsort: each line of the input along dim attr i0 on its own.
// Lines run in parallel; within a line the work is serial, so results do
// not depend on the thread split.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <kiln/error.h>

#include "jit/kernels/dtype_dispatch.h"
#include "jit/kernels/elementwise.h"
#include "jit/kernels/parallel.h"
#include "jit/kernels/strided_loop.h"

namespace kiln::jit::kernels {
namespace {

// Calls line(out, in, length) for every line along `dim`, with `out` and `in`
// the first elements of the line; the line steps by out_step and in_step.
template <class Out, class In, class Line>
void for_each_line(const KernelCall& c, Line&& line) {
  const TensorArg &in = c.in[0], &out = c.out;
  const int dim = static_cast<int>(c.node->attrs.i[0]);
  KILN_CHECK(dim >= 0 && dim < out.geo.ndim && in.geo.ndim == out.geo.ndim, "dim ", dim, " of ",
             trace::shape_str(out.geo.shape()));
  if (out.numel() == 0) return;
  const std::int64_t length = out.geo.sizes[dim];
  StridedLoop loop;
  loop.ndim = out.geo.ndim;
  loop.operands = 2;
  for (int d = 0; d < loop.ndim; ++d) {
    loop.sizes[d] = d == dim ? 1 : out.geo.sizes[d];
    loop.strides[0][d] = out.geo.strides[d];
    loop.strides[1][d] = in.geo.strides[d];
  }
  loop.coalesce();
  const std::int64_t out_step = out.geo.strides[dim], in_step = in.geo.strides[dim];
  const std::int64_t out_inner = loop.inner_stride(0), in_inner = loop.inner_stride(1);
  Out* const out_base = reinterpret_cast<Out*>(out.data);
  const In* const in_base = reinterpret_cast<const In*>(in.data);
  auto lines = [&](std::int64_t begin, std::int64_t end) {
    for_each_run(loop, begin, end, [&](const std::int64_t* offsets, std::int64_t, std::int64_t count) {
      for (std::int64_t j = 0; j < count; ++j)
        line(out_base + offsets[0] + j * out_inner, out_step, in_base + offsets[1] + j * in_inner, in_step, length);
    });
  };
  parallel_ranges(loop.numel(), std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(length, 1)),
                  lines);
}

// The accumulator of a running sum or product, as LibTorch's CPU kernel:
// double for floating types, int64 for integers (an int32 result wraps),
// bool for bool.
template <class T>
using Accumulator = std::conditional_t<std::is_floating_point_v<T>, double,
                                       std::conditional_t<std::is_same_v<T, bool>, bool, std::int64_t>>;

// NaN is greater than every number (LibTorch's sort order).
template <class T>
bool sorts_before(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return !std::isnan(a) && (std::isnan(b) || a < b);
  else return a < b;
}

template <bool Product>
void running_total(const KernelCall& c) {
  const char* op = trace::name(c.node->op);
  KILN_CHECK(c.in[0].dtype == c.out.dtype, op, " input ", c.in[0].dtype, " output ", c.out.dtype);
  const bool reverse = c.node->attrs.i[1] != 0;
  visit_dtype<kAllTypes>(c.out.dtype, op, [&]<class T>() {
    for_each_line<T, T>(c, [&](T* out, std::int64_t out_step, const T* in, std::int64_t in_step, std::int64_t n) {
      Accumulator<T> total(Product ? 1 : 0);
      for (std::int64_t k = 0; k < n; ++k) {
        const std::int64_t j = reverse ? n - 1 - k : k;
        const T x = in[j * in_step];
        if constexpr (std::is_same_v<T, bool>) {
          total = Product ? total && x : total || x;
        } else if constexpr (std::is_integral_v<T>) {  // wraps on overflow, in unsigned arithmetic
          const auto a = static_cast<std::uint64_t>(total), b = static_cast<std::uint64_t>(std::int64_t{x});
          total = static_cast<std::int64_t>(Product ? a * b : a + b);
        } else {
          total = Product ? total * x : total + x;
        }
        out[j * out_step] = static_cast<T>(total);
      }
    });
  });
}

}  // namespace

void Cumsum(const KernelCall& c) { running_total<false>(c); }
void Cumprod(const KernelCall& c) { running_total<true>(c); }

// A stable sort: equal elements keep their input order, ascending or not.
void Argsort(const KernelCall& c) {
  KILN_CHECK(c.out.dtype == kInt64, "argsort output ", c.out.dtype);
  const bool descending = c.node->attrs.i[1] != 0;
  visit_dtype<kAllTypes>(c.in[0].dtype, "argsort", [&]<class T>() {
    for_each_line<std::int64_t, T>(
        c, [&](std::int64_t* out, std::int64_t out_step, const T* in, std::int64_t in_step, std::int64_t n) {
          std::vector<T> values(static_cast<std::size_t>(n));
          for (std::int64_t j = 0; j < n; ++j) values[static_cast<std::size_t>(j)] = in[j * in_step];
          std::vector<std::int64_t> order(static_cast<std::size_t>(n));
          std::iota(order.begin(), order.end(), std::int64_t{0});
          std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
            const T x = values[static_cast<std::size_t>(a)], y = values[static_cast<std::size_t>(b)];
            return descending ? sorts_before(y, x) : sorts_before(x, y);
          });
          for (std::int64_t j = 0; j < n; ++j) out[j * out_step] = order[static_cast<std::size_t>(j)];
        });
  });
}

}  // namespace kiln::jit::kernels

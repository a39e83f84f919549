// The driver shared by the reduction kernels: splits a reduction into the
// kept dims (one output element each) and the reduced dims, and folds every
// output's elements with a Reducer in row-major order.
//
// Long reductions are cut into chunks of kReductionChunk positions whose
// partial results are combined in chunk order. The chunks are the same
// whatever the number of threads, so results never depend on the split.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "jit/kernels/cpu_features.h"
#include "jit/kernels/dtype_dispatch.h"
#include "jit/kernels/kernel.h"
#include "jit/kernels/parallel.h"
#include "jit/kernels/strided_loop.h"

namespace kiln::jit::kernels {

inline constexpr std::int64_t kReductionChunk = 32 * 1024;

/// The kept dims (operands: output, input) and the reduced dims (operand:
/// input) of a reduction kernel call.
struct ReductionShape {
  StridedLoop kept;
  StridedLoop reduced;
};
ReductionShape reduction_shape(const KernelCall& call);

/// Writes a reduction result into `out`, converted to `dtype`. Results are
/// widened to double or int64 first (exactly), so there are two of these.
void store_as(ScalarType dtype, char* out, double value);
void store_as(ScalarType dtype, char* out, std::int64_t value);
template <class V>
void store_result(ScalarType dtype, char* out, V value) {
  if constexpr (std::is_floating_point_v<V>) store_as(dtype, out, static_cast<double>(value));
  else store_as(dtype, out, static_cast<std::int64_t>(value));
}

/// A Reducer R over input elements T provides:
///   typename R::Acc; static Acc init();
///   static void step(Acc&, T value, int64_t position);   position: row-major within the reduced dims
///   static void combine(Acc& earlier, const Acc& later);
///   static auto result(const Acc&);                      stored converted to the output dtype
/// and optionally, for reducers that ignore positions, a faster fold of a
/// contiguous run: static void fold_contiguous(Acc&, const T*, int64_t n).
template <class R, class T>
typename R::Acc reduce_positions(const StridedLoop& reduced, const char* input, std::int64_t begin,
                                 std::int64_t end) {
  typename R::Acc acc = R::init();
  const std::int64_t stride = reduced.inner_stride(0);
  auto fold_run = [&](const char* p, std::int64_t first, std::int64_t n) {
    if constexpr (requires { R::fold_contiguous(acc, static_cast<const T*>(nullptr), n); }) {
      if (stride == sizeof(T)) return R::fold_contiguous(acc, reinterpret_cast<const T*>(p), n);
    }
    for (std::int64_t j = 0; j < n; ++j) R::step(acc, *reinterpret_cast<const T*>(p + j * stride), first + j);
  };
  // One reduced dim: the positions are one run. Many short reductions (a
  // pooling window's handful of elements each) spent most of their time in
  // for_each_run's bookkeeping.
  if (reduced.ndim == 1) {
    if (begin < end) fold_run(input + begin * stride, begin, end - begin);
    return acc;
  }
  for_each_run(reduced, begin, end, [&](const std::int64_t* offsets, std::int64_t first, std::int64_t n) {
    fold_run(input + offsets[0], first, n);
  });
  return acc;
}

// Steps the accumulators acc[0, m) with `positions` rows of m neighbouring
// elements, rows `row_stride` bytes apart; in AVX2 where the CPU has it
// (the library is built for any x86-64).
template <class R, class T>
[[gnu::always_inline]] inline void fold_rows(typename R::Acc* acc, const char* in, std::int64_t m,
                                             std::int64_t positions, std::int64_t row_stride) {
  // Sixteen outputs at a time, whose accumulators stay in registers while
  // the rows go by (a float 128x512 sum over its rows on one thread: 14.3
  // us one output after another; 11.6 us across the block with the
  // accumulators in memory; 7.3-8.4 us this way, 10.9 us without AVX2).
  constexpr std::int64_t kWidth = 16;
  std::int64_t j0 = 0;
  for (; j0 + kWidth <= m; j0 += kWidth) {
    typename R::Acc a[kWidth];
    for (std::int64_t j = 0; j < kWidth; ++j) a[j] = acc[j0 + j];
    for (std::int64_t p = 0; p < positions; ++p) {
      const T* row = reinterpret_cast<const T*>(in + p * row_stride) + j0;
      for (std::int64_t j = 0; j < kWidth; ++j) R::step(a[j], row[j], p);
    }
    for (std::int64_t j = 0; j < kWidth; ++j) acc[j0 + j] = a[j];
  }
  for (std::int64_t p = 0; p < positions; ++p) {
    const T* row = reinterpret_cast<const T*>(in + p * row_stride);
    for (std::int64_t j = j0; j < m; ++j) R::step(acc[j], row[j], p);
  }
}
template <class R, class T>
[[gnu::target("avx2")]] void fold_rows_avx2(typename R::Acc* acc, const char* in, std::int64_t m,
                                            std::int64_t positions, std::int64_t row_stride) {
  fold_rows<R, T>(acc, in, m, positions, row_stride);
}

template <class R, class T>
void run_reduction(const KernelCall& call) {
  using Acc = typename R::Acc;
  const ReductionShape shape = reduction_shape(call);
  const std::int64_t outputs = shape.kept.numel(), positions = shape.reduced.numel();
  const std::int64_t chunks = positions <= kReductionChunk ? 1 : (positions + kReductionChunk - 1) / kReductionChunk;
  const char* input = call.in[0].data;
  char* out = call.out.data;
  const ScalarType out_dtype = call.out.dtype;
  if (outputs == 0) return;

  // Calls f(output_offset, input_offset) for the outputs [begin, end).
  auto for_outputs = [&](std::int64_t begin, std::int64_t end, auto&& f) {
    const std::int64_t out_stride = shape.kept.inner_stride(0), in_stride = shape.kept.inner_stride(1);
    for_each_run(shape.kept, begin, end, [&](const std::int64_t* offsets, std::int64_t, std::int64_t n) {
      for (std::int64_t j = 0; j < n; ++j) f(offsets[0] + j * out_stride, offsets[1] + j * in_stride);
    });
  };

  if (chunks == 1) {
    const std::int64_t grain = std::max<std::int64_t>(1, kReductionChunk / std::max<std::int64_t>(positions, 1));
    // One reduced dim not contiguous (pooling windows stacked on a middle
    // dim, a sum over rows): a block of neighbouring outputs at a time, each
    // position stepping the whole block, so that the outputs' dependency
    // chains interleave instead of one short chain after another (argmax
    // over 4 positions took 18 ns an output). Each output still folds its
    // positions in order, so the results are those of reduce_positions.
    const std::int64_t reduced_stride = shape.reduced.inner_stride(0);
    if (shape.reduced.ndim == 1 && reduced_stride != static_cast<std::int64_t>(sizeof(T))) {
      const std::int64_t out_stride = shape.kept.inner_stride(0), in_stride = shape.kept.inner_stride(1);
      return parallel_ranges(outputs, grain, [&](std::int64_t begin, std::int64_t end) {
        for_each_run(shape.kept, begin, end, [&](const std::int64_t* offsets, std::int64_t, std::int64_t n) {
          constexpr std::int64_t kBlock = 64;
          Acc acc[kBlock];
          for (std::int64_t j0 = 0; j0 < n; j0 += kBlock) {
            const std::int64_t m = std::min(kBlock, n - j0);
            const char* in = input + offsets[1] + j0 * in_stride;
            for (std::int64_t j = 0; j < m; ++j) acc[j] = R::init();
            // Neighbouring outputs side by side in memory (a bias gradient,
            // the sum over a batch's rows): a stride the compiler knows lets
            // it vectorize across the block.
            if (in_stride == static_cast<std::int64_t>(sizeof(T))) {
              if (cpu_has_avx2_fma()) fold_rows_avx2<R, T>(acc, in, m, positions, reduced_stride);
              else fold_rows<R, T>(acc, in, m, positions, reduced_stride);
            } else {
              for (std::int64_t p = 0; p < positions; ++p)
                for (std::int64_t j = 0; j < m; ++j)
                  R::step(acc[j], *reinterpret_cast<const T*>(in + j * in_stride + p * reduced_stride), p);
            }
            for (std::int64_t j = 0; j < m; ++j)
              store_result(out_dtype, out + offsets[0] + (j0 + j) * out_stride, R::result(acc[j]));
          }
        });
      });
    }
    auto reduce_outputs = [&](std::int64_t begin, std::int64_t end) {
      for_outputs(begin, end, [&](std::int64_t out_offset, std::int64_t in_offset) {
        store_result(out_dtype, out + out_offset, R::result(reduce_positions<R, T>(shape.reduced, input + in_offset, 0, positions)));
      });
    };
    return parallel_ranges(outputs, grain, reduce_outputs);
  }

  // Few long reductions: one task per (output, chunk), then combine in order.
  std::vector<std::int64_t> in_offsets, out_offsets;
  for_outputs(0, outputs, [&](std::int64_t out_offset, std::int64_t in_offset) {
    out_offsets.push_back(out_offset);
    in_offsets.push_back(in_offset);
  });
  std::vector<Acc> partial(static_cast<std::size_t>(outputs * chunks));
  parallel_ranges(outputs * chunks, 1, [&](std::int64_t first_task, std::int64_t end_task) {
    for (std::int64_t task = first_task; task < end_task; ++task) {
      const std::int64_t o = task / chunks, begin = (task % chunks) * kReductionChunk;
      partial[task] = reduce_positions<R, T>(shape.reduced, input + in_offsets[o], begin,
                                             std::min(begin + kReductionChunk, positions));
    }
  });
  for (std::int64_t o = 0; o < outputs; ++o) {
    Acc acc = partial[o * chunks];
    for (std::int64_t c = 1; c < chunks; ++c) R::combine(acc, partial[o * chunks + c]);
    store_result(out_dtype, out + out_offsets[o], R::result(acc));
  }
}

}  // namespace kiln::jit::kernels

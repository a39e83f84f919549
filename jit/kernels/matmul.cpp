// MatMul: [..., M, K] @ [..., K, N] -> [..., M, N] with the batch dims
// already broadcast (a broadcast batch dim has stride 0). Each matrix goes
// to gemm(), which splits a large one over the threads; a batch that the
// threads share evenly is split by matrix instead.
#include <type_traits>

#include <kiln/error.h>

#include "jit/kernels/dtype_dispatch.h"
#include "jit/kernels/gemm.h"
#include "jit/kernels/kernel.h"
#include "jit/kernels/matmul.h"
#include "jit/kernels/parallel.h"
#include "jit/kernels/strided_loop.h"

namespace kiln::jit::kernels {
namespace {

// Whether threads take whole matrices of the batch rather than each
// matrix split over them. A matrix split shares what one thread packs
// with the others, and below kGemmParallelWork the gemm is not split at
// all; whole matrices share nothing, which pays wherever the batch leaves
// no thread idle for long: a multiple of the threads, or at least four
// matrices a thread. (The CNN of training_bench at 2 threads on the
// AVX-512 machine: its 32 products of 32x144x196 per convolution ran
// 2.4x slower split than on one thread: 1365 against 560 us.)
bool split_by_matrix(std::int64_t batches, std::int64_t work) {
  const std::int64_t threads = loop_threads();
  if (batches < 2 || threads == 1) return false;
  if (work < kGemmParallelWork) return true;
  return batches % threads == 0 || batches >= 4 * threads;
}

// An epilogue's view of one matrix of the batch.
struct BatchBlock {
  const MatmulEpilogue* epilogue;
  std::int64_t batch;

  static void call(const void* self, std::int64_t row, std::int64_t rows, std::int64_t col, std::int64_t cols) {
    const auto* b = static_cast<const BatchBlock*>(self);
    b->epilogue->fn(b->epilogue->context, b->batch, row, rows, col, cols);
  }
};

template <class T>
void batched_matmul(const TensorArg& in_a, const TensorArg& in_b, const TensorArg& out,
                    const MatmulEpilogue* epilogue, const ContentTag& in_b_content) {
  const trace::Geometry &ga = in_a.geo, &gb = in_b.geo, &gc = out.geo;
  const int nd = gc.ndim;
  const std::int64_t m = gc.sizes[nd - 2], n = gc.sizes[nd - 1], k = ga.sizes[nd - 1];
  KILN_CHECK(ga.ndim == nd && gb.ndim == nd && ga.sizes[nd - 2] == m && gb.sizes[nd - 2] == k && gb.sizes[nd - 1] == n,
             "matmul operands ", trace::shape_str(ga.shape()), " @ ", trace::shape_str(gb.shape()), " -> ",
             trace::shape_str(gc.shape()));

  // The batch dims as a loop over (out, a, b) element offsets.
  StridedLoop batch;
  batch.ndim = nd - 2;
  batch.operands = 3;
  const trace::Geometry* geos[3] = {&gc, &ga, &gb};
  for (int d = 0; d < nd - 2; ++d) {
    batch.sizes[d] = gc.sizes[d];
    for (int op = 0; op < 3; ++op) batch.strides[op][d] = geos[op]->strides[d];
  }
  batch.coalesce();
  const std::int64_t batches = batch.numel();
  if (batches == 0 || m == 0 || n == 0) return;

  auto multiply = [&](std::int64_t begin, std::int64_t end) {
    for_each_run(batch, begin, end, [&](const std::int64_t* offsets, std::int64_t first, std::int64_t count) {
      for (std::int64_t i = 0; i < count; ++i) {
        const auto* a = reinterpret_cast<const T*>(in_a.data) + offsets[1] + i * batch.inner_stride(1);
        const auto* b = reinterpret_cast<const T*>(in_b.data) + offsets[2] + i * batch.inner_stride(2);
        auto* c = reinterpret_cast<T*>(out.data) + offsets[0] + i * batch.inner_stride(0);
        const MatrixRef<const T> ma{a, ga.strides[nd - 2], ga.strides[nd - 1]};
        const MatrixRef<const T> mb{b, gb.strides[nd - 2], gb.strides[nd - 1]};
        const MatrixRef<T> mc{c, gc.strides[nd - 2], gc.strides[nd - 1]};
        if constexpr (std::is_floating_point_v<T>) {
          // Coalescing kept row-major order, so `first + i` is the matrix's batch index.
          const BatchBlock block{epilogue, first + i};
          const GemmEpilogue per_matrix{&BatchBlock::call, &block};
          ContentTag b_content = in_b_content;
          b_content.offset += offsets[2] + i * batch.inner_stride(2);
          gemm(m, n, k, ma, mb, mc, epilogue ? &per_matrix : nullptr, b_content);
        } else {
          gemm(m, n, k, ma, mb, mc);
        }
      }
    });
  };
  parallel_ranges(batches, split_by_matrix(batches, m * n * k) ? 1 : batches, multiply);
}

}  // namespace

void MatMul(const KernelCall& c) {
  KILN_CHECK(c.out.geo.ndim >= 2, "matmul output has ", c.out.geo.ndim, " dims");
  visit_dtype<kNumericTypes>(c.out.dtype, "matmul",
                             [&]<class T>() { batched_matmul<T>(c.in[0], c.in[1], c.out, nullptr, c.matmul_b); });
}

void matmul_float(const TensorArg& a, const TensorArg& b, const TensorArg& out, const MatmulEpilogue* epilogue,
                  const ContentTag& b_content) {
  KILN_CHECK(out.geo.ndim >= 2 && is_floating_point(out.dtype) && a.dtype == out.dtype && b.dtype == out.dtype,
             "matmul_float on ", a.dtype, " @ ", b.dtype, " -> ", out.dtype);
  visit_dtype<kFloatTypes>(out.dtype, "matmul", [&]<class T>() { batched_matmul<T>(a, b, out, epilogue, b_content); });
}

}  // namespace kiln::jit::kernels

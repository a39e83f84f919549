// MatMul: [..., M, K] @ [..., K, N] -> [..., M, N] with the batch dims
// already broadcast (a broadcast batch dim has stride 0). Each matrix goes
// to gemm(); many small matrices are spread over threads by batch instead.
#include <kiln/error.h>

#include "jit/kernels/dtype_dispatch.h"
#include "jit/kernels/gemm.h"
#include "jit/kernels/kernel.h"
#include "jit/kernels/parallel.h"
#include "jit/kernels/strided_loop.h"

namespace kiln::jit::kernels {
namespace {

// Below this many multiply-adds per matrix, threads split the batch.
constexpr std::int64_t kSmallMatrixWork = std::int64_t{1} << 16;

template <class T>
void batched_matmul(const KernelCall& c) {
  const trace::Geometry &ga = c.in[0].geo, &gb = c.in[1].geo, &gc = c.out.geo;
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
    for_each_run(batch, begin, end, [&](const std::int64_t* offsets, std::int64_t, std::int64_t count) {
      for (std::int64_t i = 0; i < count; ++i) {
        const auto* a = reinterpret_cast<const T*>(c.in[0].data) + offsets[1] + i * batch.inner_stride(1);
        const auto* b = reinterpret_cast<const T*>(c.in[1].data) + offsets[2] + i * batch.inner_stride(2);
        auto* out = reinterpret_cast<T*>(c.out.data) + offsets[0] + i * batch.inner_stride(0);
        gemm(m, n, k, MatrixRef<const T>{a, ga.strides[nd - 2], ga.strides[nd - 1]},
             MatrixRef<const T>{b, gb.strides[nd - 2], gb.strides[nd - 1]},
             MatrixRef<T>{out, gc.strides[nd - 2], gc.strides[nd - 1]});
      }
    });
  };
  // One matrix per task when each is small (the gemm itself stays serial).
  parallel_ranges(batches, m * n * k < kSmallMatrixWork ? 1 : batches, multiply);
}

}  // namespace

void MatMul(const KernelCall& c) {
  KILN_CHECK(c.out.geo.ndim >= 2, "matmul output has ", c.out.geo.ndim, " dims");
  visit_dtype<kNumericTypes>(c.out.dtype, "matmul", [&]<class T>() { batched_matmul<T>(c); });
}

}  // namespace kiln::jit::kernels

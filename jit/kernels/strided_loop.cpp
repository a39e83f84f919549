#include "jit/kernels/strided_loop.h"

namespace kiln::jit::kernels {

void StridedLoop::coalesce() {
  int kept = 0;
  for (int d = 0; d < ndim; ++d) {
    if (sizes[d] == 1) continue;
    bool merges = kept > 0;
    for (int k = 0; k < operands && merges; ++k)
      merges = strides[k][kept - 1] == strides[k][d] * sizes[d];
    if (merges) {
      sizes[kept - 1] *= sizes[d];
      for (int k = 0; k < operands; ++k) strides[k][kept - 1] = strides[k][d];
      continue;
    }
    sizes[kept] = sizes[d];
    for (int k = 0; k < operands; ++k) strides[k][kept] = strides[k][d];
    ++kept;
  }
  if (kept == 0) {  // a single element (or a shape of ones)
    sizes[0] = 1;
    for (int k = 0; k < operands; ++k) strides[k][0] = 0;
    kept = 1;
  }
  ndim = kept;
}

}  // namespace kiln::jit::kernels

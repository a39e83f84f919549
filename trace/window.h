// The window of Im2col and Col2im (trace/ops.def): kernel, stride, padding
// and dilation per spatial dim of a 2-d input, packed into a node's two
// attrs at 16 bits a value (i0: kernel h, w, stride h, w; i1: padding h, w,
// dilation h, w), so that it is part of the segment key like any attr.
#pragma once

#include <cstdint>

#include "trace/node.h"

namespace kiln::trace {

struct Window2d {
  std::int64_t kernel[2] = {1, 1};
  std::int64_t stride[2] = {1, 1};
  std::int64_t padding[2] = {0, 0};
  std::int64_t dilation[2] = {1, 1};

  /// Largest value a field may hold (16 bits).
  static constexpr std::int64_t kMaxValue = 0xffff;

  /// Windows along spatial dim d of an input of `size` (may be < 1 when the
  /// window does not fit).
  std::int64_t out_size(int d, std::int64_t size) const {
    const std::int64_t span = dilation[d] * (kernel[d] - 1) + 1;
    return size + 2 * padding[d] < span ? 0 : (size + 2 * padding[d] - span) / stride[d] + 1;
  }
  std::int64_t kernel_numel() const { return kernel[0] * kernel[1]; }

  Attrs attrs() const {
    auto pack = [](const std::int64_t* a, const std::int64_t* b) {
      return a[0] | a[1] << 16 | b[0] << 32 | b[1] << 48;
    };
    Attrs out;
    out.i[0] = pack(kernel, stride);
    out.i[1] = pack(padding, dilation);
    return out;
  }
  static Window2d from(const Attrs& attrs) {
    auto field = [&](int i, int k) { return attrs.i[i] >> (16 * k) & kMaxValue; };
    Window2d w;
    for (int d = 0; d < 2; ++d) {
      w.kernel[d] = field(0, d);
      w.stride[d] = field(0, 2 + d);
      w.padding[d] = field(1, d);
      w.dilation[d] = field(1, 2 + d);
    }
    return w;
  }
};

}  // namespace kiln::trace

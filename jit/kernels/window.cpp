// im2col and col2im (trace/window.h): the sliding windows of [N, C, H, W]
// as columns [N, C*kh*kw, oh*ow], and the columns summed back. Planes
// (n, c) run in parallel; within a plane col2im adds the kernel offsets in
// a fixed order, so results do not depend on the thread split.
#include <algorithm>

#include <kiln/error.h>

#include "jit/kernels/dtype_dispatch.h"
#include "jit/kernels/kernel.h"
#include "jit/kernels/parallel.h"
#include "trace/window.h"

namespace kiln::jit::kernels {
namespace {

// The geometry both kernels share: the image side [N, C, H, W] and the
// column side [N, C*K, L], each through its own strides.
struct WindowPlan {
  trace::Window2d w;
  std::int64_t n, c, h, wd, oh, ow;
  const std::int64_t* image_strides;
  const std::int64_t* column_strides;

  WindowPlan(const trace::Node& node, const TensorArg& image, const TensorArg& columns)
      : w(trace::Window2d::from(node.attrs)),
        n(image.geo.sizes[0]),
        c(image.geo.sizes[1]),
        h(image.geo.sizes[2]),
        wd(image.geo.sizes[3]),
        oh(w.out_size(0, h)),
        ow(w.out_size(1, wd)),
        image_strides(image.geo.strides),
        column_strides(columns.geo.strides) {
    KILN_CHECK(image.geo.ndim == 4 && columns.geo.ndim == 3 && columns.geo.sizes[0] == n &&
                   columns.geo.sizes[1] == c * w.kernel_numel() && columns.geo.sizes[2] == oh * ow,
               "window op on image ", trace::shape_str(image.geo.shape()), " and columns ",
               trace::shape_str(columns.geo.shape()));
  }

  // fn(image plane offset, column offset of row c*K + offset) for every
  // plane and kernel offset, with the offset's (i, j); planes in parallel.
  template <class Fn>
  void for_each_offset(Fn&& fn) const {
    const std::int64_t k = w.kernel_numel();
    parallel_ranges(n * c, std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(1, k * oh * ow)),
                    [&](std::int64_t begin, std::int64_t end) {
                      for (std::int64_t plane = begin; plane < end; ++plane) {
                        const std::int64_t b = plane / c, ch = plane % c;
                        const std::int64_t image = b * image_strides[0] + ch * image_strides[1];
                        for (std::int64_t off = 0; off < k; ++off)
                          fn(image, b * column_strides[0] + (ch * k + off) * column_strides[1], off / w.kernel[1],
                             off % w.kernel[1]);
                      }
                    });
  }

  // row(l0, y, lo, hi, x0) for each row oy of windows at kernel offset
  // (i, j): its windows are columns l0 .. l0 + ow, and those ox in [lo, hi)
  // read inside the image, at row y and column x0 + ox * stride (lo == hi
  // when the row y is in the padding).
  template <class Row>
  void for_each_row(std::int64_t i, std::int64_t j, Row&& row) const {
    auto ceil_div = [](std::int64_t a, std::int64_t b) { return a >= 0 ? (a + b - 1) / b : -(-a / b); };
    const std::int64_t x0 = j * w.dilation[1] - w.padding[1], sw = w.stride[1];
    const std::int64_t lo = std::clamp<std::int64_t>(ceil_div(-x0, sw), 0, ow);
    const std::int64_t hi = std::clamp<std::int64_t>(ceil_div(wd - x0, sw), lo, ow);
    for (std::int64_t oy = 0; oy < oh; ++oy) {
      const std::int64_t y = oy * w.stride[0] - w.padding[0] + i * w.dilation[0];
      const bool inside = y >= 0 && y < h;
      row(oy * ow, y, inside ? lo : 0, inside ? hi : 0, x0);
    }
  }
};

// The rows of a window plane are short (a 14-wide image has 14 windows a
// row) and their steps known only at run time: the contiguous cases and
// pooling's step of 2 get loops the compiler vectorizes, the rest a plain one.
template <class T>
void copy_row(T* out, std::int64_t out_step, const T* in, std::int64_t in_step, std::int64_t n) {
  if (out_step == 1 && in_step == 1) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = in[i];
  } else if (out_step == 1 && in_step == 2) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = in[2 * i];
  } else {
    for (std::int64_t i = 0; i < n; ++i) out[i * out_step] = in[i * in_step];
  }
}

template <class T>
void zero_row(T* out, std::int64_t step, std::int64_t n) {
  if (step == 1) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = T(0);
  } else {
    for (std::int64_t i = 0; i < n; ++i) out[i * step] = T(0);
  }
}

template <class T>
void add_row(T* out, std::int64_t out_step, const T* in, std::int64_t in_step, std::int64_t n) {
  if (out_step == 1 && in_step == 1) {
    for (std::int64_t i = 0; i < n; ++i) out[i] += in[i];
  } else if (out_step == 2 && in_step == 1) {
    for (std::int64_t i = 0; i < n; ++i) out[2 * i] += in[i];
  } else {
    for (std::int64_t i = 0; i < n; ++i) out[i * out_step] += in[i * in_step];
  }
}

// Windows of stride 1 over contiguous image rows as long as a row of
// windows (a "same" convolution: 3x3 with padding 1): column oy * ow + ox of
// offset (i, j) reads image element (oy + shift) * ow + x0 + ox, so the rows
// of windows inside the image are one run of the image, copied at once;
// the columns over the left and right padding, which that copy filled from
// the neighbouring rows, are then zeroed. (Row by row, the 14-wide rows of
// the CNN's second convolution cost about 7 ns each.)
bool same_rows(const WindowPlan& p) {
  return p.column_strides[2] == 1 && p.image_strides[3] == 1 && p.image_strides[2] == p.ow && p.w.stride[0] == 1 &&
         p.w.stride[1] == 1;
}

template <class T>
void im2col_same_rows(const WindowPlan& p, const T* image, T* columns) {
  const std::int64_t ow = p.ow;
  p.for_each_offset([&](std::int64_t plane, std::int64_t row, std::int64_t i, std::int64_t j) {
    T* out = columns + row;
    const std::int64_t shift = i * p.w.dilation[0] - p.w.padding[0], x0 = j * p.w.dilation[1] - p.w.padding[1];
    const std::int64_t first = std::clamp<std::int64_t>(-shift, 0, p.oh);
    const std::int64_t last = std::clamp<std::int64_t>(p.h - shift, first, p.oh);
    const std::int64_t lo = std::clamp<std::int64_t>(-x0, 0, ow), hi = std::clamp<std::int64_t>(p.wd - x0, lo, ow);
    if (first == last || lo == hi) {
      std::fill_n(out, p.oh * ow, T(0));
      return;
    }
    std::fill_n(out, first * ow + lo, T(0));
    const std::int64_t begin = first * ow + lo, end = (last - 1) * ow + hi;
    std::copy_n(image + (plane + (first + shift) * ow + x0 + lo), end - begin, out + begin);
    for (std::int64_t oy = first; oy + 1 < last; ++oy) {
      std::fill(out + oy * ow + hi, out + oy * ow + ow, T(0));
      std::fill(out + (oy + 1) * ow, out + (oy + 1) * ow + lo, T(0));
    }
    std::fill(out + end, out + p.oh * ow, T(0));
  });
}

template <class T>
void im2col(const KernelCall& call) {
  const WindowPlan p(*call.node, call.in[0], call.out);
  const T* image = reinterpret_cast<const T*>(call.in[0].data);
  T* columns = reinterpret_cast<T*>(call.out.data);
  if (same_rows(p)) return im2col_same_rows(p, image, columns);
  const std::int64_t ls = p.column_strides[2], ys = p.image_strides[2], xs = p.image_strides[3] * p.w.stride[1];
  p.for_each_offset([&](std::int64_t plane, std::int64_t row, std::int64_t i, std::int64_t j) {
    p.for_each_row(i, j, [&](std::int64_t l0, std::int64_t y, std::int64_t lo, std::int64_t hi, std::int64_t x0) {
      T* out = columns + row + l0 * ls;
      const std::int64_t in = plane + y * ys + x0 * p.image_strides[3];  // an offset: it may lie in the padding
      zero_row(out, ls, lo);
      copy_row(out + lo * ls, ls, image + (hi > lo ? in + lo * xs : 0), xs, hi - lo);
      zero_row(out + hi * ls, ls, p.ow - hi);
    });
  });
}

template <class T>
void col2im(const KernelCall& call) {
  const WindowPlan p(*call.node, call.out, call.in[0]);
  const T* columns = reinterpret_cast<const T*>(call.in[0].data);
  T* image = reinterpret_cast<T*>(call.out.data);
  const std::int64_t ls = p.column_strides[2], ys = p.image_strides[2], xs = p.image_strides[3] * p.w.stride[1];
  p.for_each_offset([&](std::int64_t plane, std::int64_t row, std::int64_t i, std::int64_t j) {
    if (i == 0 && j == 0)  // the plane's first offset: clear it first (one task owns the plane)
      for (std::int64_t y = 0; y < p.h; ++y) zero_row(image + plane + y * ys, p.image_strides[3], p.wd);
    p.for_each_row(i, j, [&](std::int64_t l0, std::int64_t y, std::int64_t lo, std::int64_t hi, std::int64_t x0) {
      const std::int64_t out = plane + y * ys + x0 * p.image_strides[3];  // an offset: it may lie in the padding
      // (A row in the padding adds nothing; its offset may lie outside the image.)
      add_row(image + (hi > lo ? out + lo * xs : 0), xs, columns + row + (l0 + lo) * ls, ls, hi - lo);
    });
  });
}

}  // namespace

void Im2col(const KernelCall& c) {
  visit_dtype<kNumericTypes>(c.out.dtype, "im2col", [&]<class T>() { im2col<T>(c); });
}

void Col2im(const KernelCall& c) {
  visit_dtype<kNumericTypes>(c.out.dtype, "col2im", [&]<class T>() { col2im<T>(c); });
}

}  // namespace kiln::jit::kernels

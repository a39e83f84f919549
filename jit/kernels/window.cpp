// im2col and col2im (trace/window.h): the sliding windows of [N, C, H, W]
// as columns [N, C*kh*kw, oh*ow], and the columns summed back. Planes
// (n, c) run in parallel; within a plane col2im adds the kernel offsets in
// a fixed order, so results do not depend on the thread split.
#include <algorithm>
#include <type_traits>
#include <vector>

#include <kiln/error.h>

#include "jit/kernels/cpu_features.h"
#include "jit/kernels/dtype_dispatch.h"
#include "jit/kernels/kernel.h"
#include "jit/kernels/parallel.h"
#include "jit/kernels/window_rows.h"
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

  // Where the windows of kernel offset (i, j) read inside the image.
  struct OffsetRows {
    std::int64_t first = 0, last = 0;  // rows of windows [first, last) (none: first == last)
    std::int64_t lo = 0, hi = 0;       // windows [lo, hi) of each of those rows
    std::int64_t image = 0;            // the plane's element that window (first, lo) reads
    std::int64_t row_step = 0;         // image elements from one of those rows to the next
  };
  OffsetRows rows_of(std::int64_t i, std::int64_t j) const {
    auto ceil_div = [](std::int64_t a, std::int64_t b) { return a >= 0 ? (a + b - 1) / b : -(-a / b); };
    const std::int64_t y0 = i * w.dilation[0] - w.padding[0], x0 = j * w.dilation[1] - w.padding[1];
    OffsetRows r;
    r.lo = std::clamp<std::int64_t>(ceil_div(-x0, w.stride[1]), 0, ow);
    r.hi = std::clamp<std::int64_t>(ceil_div(wd - x0, w.stride[1]), r.lo, ow);
    r.first = std::clamp<std::int64_t>(ceil_div(-y0, w.stride[0]), 0, oh);
    r.last = r.lo == r.hi ? r.first : std::clamp<std::int64_t>(ceil_div(h - y0, w.stride[0]), r.first, oh);
    r.image = (r.first * w.stride[0] + y0) * image_strides[2] + (x0 + r.lo * w.stride[1]) * image_strides[3];
    r.row_step = w.stride[0] * image_strides[2];
    return r;
  }

  // fn(image plane offset, column offset of the plane's first row) for
  // every plane (n, c), in parallel.
  template <class Fn>
  void for_each_plane(Fn&& fn) const {
    const std::int64_t k = w.kernel_numel();
    parallel_ranges(n * c, std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(1, k * oh * ow)),
                    [&](std::int64_t begin, std::int64_t end) {
                      std::int64_t b = begin / c, ch = begin % c;
                      for (std::int64_t plane = begin; plane < end; ++plane) {
                        fn(b * image_strides[0] + ch * image_strides[1],
                           b * column_strides[0] + ch * k * column_strides[1]);
                        if (++ch == c) ch = 0, ++b;
                      }
                    });
  }

  // fn(image plane offset, column offset of row c*K + off, off, the
  // offset's rows) for every plane and kernel offset off. The offsets' rows
  // are worked out once a call: per plane, their divisions cost more than
  // the rows of a 2x2 pooling (about 60 ns against 7 rows of 7 windows).
  template <class Fn>
  void for_each_offset(Fn&& fn) const {
    const std::int64_t k = w.kernel_numel();
    std::vector<OffsetRows> rows(static_cast<std::size_t>(k));
    for (std::int64_t off = 0; off < k; ++off) rows[off] = rows_of(off / w.kernel[1], off % w.kernel[1]);
    for_each_plane([&](std::int64_t image, std::int64_t column) {
      for (std::int64_t off = 0; off < k; ++off) fn(image, column + off * column_strides[1], off, rows[off]);
    });
  }

  // The masked AVX-512 rows serve float planes whose windows are adjacent
  // in the columns and one or two elements apart in the image.
  template <class T>
  bool vector_rows() const {
    return std::is_same_v<T, float> && column_strides[2] == 1 && image_strides[3] == 1 && w.stride[1] <= 2 &&
           cpu_has_avx512f_fma();
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
  p.for_each_offset([&](std::int64_t plane, std::int64_t row, std::int64_t, const WindowPlan::OffsetRows& r) {
    T* out = columns + row;
    const std::int64_t first = r.first, last = r.last, lo = r.lo, hi = r.hi;
    if (first == last) {
      std::fill_n(out, p.oh * ow, T(0));
      return;
    }
    std::fill_n(out, first * ow + lo, T(0));
    const std::int64_t begin = first * ow + lo, end = (last - 1) * ow + hi;
    std::copy_n(image + plane + r.image, end - begin, out + begin);
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
  const std::int64_t ls = p.column_strides[2], xs = p.image_strides[3] * p.w.stride[1], ow = p.ow;
  const bool vector = p.vector_rows<T>();
  p.for_each_offset([&](std::int64_t plane, std::int64_t row, std::int64_t, const WindowPlan::OffsetRows& r) {
    T* out = columns + row;
    for (std::int64_t oy = 0; oy < r.first; ++oy) zero_row(out + oy * ow * ls, ls, ow);
    for (std::int64_t oy = r.last; oy < p.oh; ++oy) zero_row(out + oy * ow * ls, ls, ow);
    if (r.first == r.last) return;
    const T* in = image + plane + r.image;
    if constexpr (std::is_same_v<T, float>) {
      if (vector)
        return copy_window_rows_avx512(out + r.first * ow, ow, in, r.row_step, xs, r.last - r.first, r.lo, r.hi);
    }
    for (std::int64_t oy = r.first; oy < r.last; ++oy, in += r.row_step) {
      T* o = out + oy * ow * ls;
      zero_row(o, ls, r.lo);
      copy_row(o + r.lo * ls, ls, in, xs, r.hi - r.lo);
      zero_row(o + r.hi * ls, ls, ow - r.hi);
    }
  });
}

// col2im's vector form: what each kernel column adds to each 16 image
// columns, and which row of windows reads each image row.
FoldRows fold_rows(const WindowPlan& p) {
  auto floor_div = [](std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  FoldRows f;
  f.height = p.h;
  f.width = p.wd;
  f.image_row_stride = p.image_strides[2];
  f.kernel_rows = p.w.kernel[0];
  f.kernel_cols = p.w.kernel[1];
  f.windows_per_row = p.ow;
  f.column_row_stride = p.column_strides[1];
  f.two_apart = p.w.stride[1] == 2;
  f.window_row.assign(static_cast<std::size_t>(f.kernel_rows * p.h), -1);
  for (std::int64_t i = 0; i < f.kernel_rows; ++i)
    for (std::int64_t oy = 0; oy < p.oh; ++oy) {
      const std::int64_t y = oy * p.w.stride[0] + i * p.w.dilation[0] - p.w.padding[0];
      if (y >= 0 && y < p.h) f.window_row[i * p.h + y] = oy;
    }
  const std::int64_t chunks = (p.wd + 15) / 16, step = p.w.stride[1];
  f.lanes.resize(static_cast<std::size_t>(f.kernel_cols * chunks));
  for (std::int64_t j = 0; j < f.kernel_cols; ++j) {
    const WindowPlan::OffsetRows r = p.rows_of(0, j);
    const std::int64_t x0 = j * p.w.dilation[1] - p.w.padding[1];
    for (std::int64_t q = 0; q < chunks; ++q) {
      // Window ox reads image column x0 + ox * step: lane x0 + ox * step - 16q.
      FoldRows::Lanes& l = f.lanes[j * chunks + q];
      l.first = -floor_div(x0 - 16 * q, step);  // the first window at or right of lane 0
      const std::int64_t lane0 = x0 + l.first * step - 16 * q;
      for (std::int64_t t = 0; t < 16; ++t) {
        const std::int64_t ox = l.first + t, lane = lane0 + t * step;
        if (ox < r.lo || ox >= r.hi || lane >= 16) continue;
        l.load |= static_cast<std::uint16_t>(1u << t);
        l.add |= static_cast<std::uint16_t>(1u << lane);
      }
    }
  }
  return f;
}

template <class T>
void col2im(const KernelCall& call) {
  const WindowPlan p(*call.node, call.out, call.in[0]);
  const T* columns = reinterpret_cast<const T*>(call.in[0].data);
  T* image = reinterpret_cast<T*>(call.out.data);
  if constexpr (std::is_same_v<T, float>) {
    if (p.vector_rows<T>()) {
      const FoldRows f = fold_rows(p);
      return p.for_each_plane([&](std::int64_t plane, std::int64_t column) {
        fold_plane_avx512(f, image + plane, columns + column);
      });
    }
  }
  const std::int64_t ls = p.column_strides[2], ys = p.image_strides[2], xs = p.image_strides[3] * p.w.stride[1];
  p.for_each_offset([&](std::int64_t plane, std::int64_t row, std::int64_t off, const WindowPlan::OffsetRows& r) {
    if (off == 0)  // the plane's first offset: clear it first (one task owns the plane)
      for (std::int64_t y = 0; y < p.h; ++y) zero_row(image + plane + y * ys, p.image_strides[3], p.wd);
    if (r.first == r.last) return;
    T* out = image + plane + r.image;
    const T* in = columns + row + (r.first * p.ow + r.lo) * ls;
    for (std::int64_t oy = r.first; oy < r.last; ++oy, out += r.row_step, in += p.ow * ls)
      add_row(out, xs, in, ls, r.hi - r.lo);
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

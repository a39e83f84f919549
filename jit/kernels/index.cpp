// index_select and gather: out[p] = src[p with p[dim] replaced by index(p)].
// For index_select, index(p) = index[p[dim]] (a 1-D index); for gather,
// index(p) = index[p] (the index has the output's shape). scatter_add is
// gather's adjoint: out = self, then out[p with p[dim] = index[p]] += src[p].
// Every index is checked before anything is written, so a bad one leaves
// the output as it was and throws kiln::IndexError.
#include <cstring>

#include <kiln/error.h>

#include "jit/kernels/copy.h"
#include "jit/kernels/dtype_dispatch.h"
#include "jit/kernels/elementwise.h"
#include "jit/kernels/parallel.h"
#include "jit/kernels/strided_loop.h"

namespace kiln::jit::kernels {
namespace {

void check_indices(const KernelCall& c, int dim, std::int64_t bound) {
  const TensorArg& index = c.in[1];
  KILN_CHECK(index.dtype == kInt64, "index dtype ", index.dtype);
  StridedLoop loop;
  loop.ndim = index.geo.ndim;
  loop.operands = 1;
  for (int d = 0; d < loop.ndim; ++d) {
    loop.sizes[d] = index.geo.sizes[d];
    loop.strides[0][d] = index.geo.strides[d] * 8;
  }
  loop.coalesce();
  const std::int64_t stride = loop.inner_stride(0);
  for_each_run(loop, 0, index.numel(), [&](const std::int64_t* offsets, std::int64_t, std::int64_t n) {
    for (std::int64_t j = 0; j < n; ++j) {
      std::int64_t v;
      std::memcpy(&v, index.data + offsets[0] + j * stride, 8);
      if (v < 0 || v >= bound)
        throw IndexError(detail::cat("[", trace::name(c.node->op), "] index ", v,
                                     " is out of bounds for dimension ", dim, " with size ", bound));
    }
  });
}

template <class Carrier>
void copy_selected(const StridedLoop& loop, char* const* base, std::int64_t src_dim_stride,
                   std::int64_t begin, std::int64_t end) {
  const std::int64_t out_stride = loop.inner_stride(0), src_stride = loop.inner_stride(1),
                     index_stride = loop.inner_stride(2);
  for_each_run(loop, begin, end, [&](const std::int64_t* offsets, std::int64_t, std::int64_t n) {
    char* out = base[0] + offsets[0];
    const char* src = base[1] + offsets[1];
    const char* index = base[2] + offsets[2];
    for (std::int64_t j = 0; j < n; ++j) {
      std::int64_t v;
      std::memcpy(&v, index + j * index_stride, 8);
      std::memcpy(out + j * out_stride, src + j * src_stride + v * src_dim_stride, sizeof(Carrier));
    }
  });
}

// `index_strides` gives the index operand's element strides over the output's dims.
void run_index_op(const KernelCall& c, const std::int64_t* index_strides) {
  const TensorArg &src = c.in[0], &out = c.out;
  const int dim = static_cast<int>(c.node->attrs.i[0]);
  KILN_CHECK(dim >= 0 && dim < src.geo.ndim && src.geo.ndim == out.geo.ndim, "dim ", dim, " of ",
             trace::shape_str(src.geo.shape()));
  KILN_CHECK(src.dtype == out.dtype, "source ", src.dtype, " output ", out.dtype);
  check_indices(c, dim, src.geo.sizes[dim]);
  const std::int64_t numel = out.numel();
  if (numel == 0) return;

  const std::int64_t size = static_cast<std::int64_t>(element_size(out.dtype));
  StridedLoop loop;
  loop.ndim = out.geo.ndim;
  loop.operands = 3;
  for (int d = 0; d < loop.ndim; ++d) {
    loop.sizes[d] = out.geo.sizes[d];
    loop.strides[0][d] = out.geo.strides[d] * size;
    loop.strides[1][d] = d == dim ? 0 : src.geo.strides[d] * size;  // index supplies the position
    loop.strides[2][d] = index_strides[d] * 8;
  }
  loop.coalesce();
  char* const base[3] = {out.data, src.data, c.in[1].data};
  const std::int64_t src_dim_stride = src.geo.strides[dim] * size;
  auto copy_range = [&](std::int64_t begin, std::int64_t end) {
    switch (size) {
      case 1: return copy_selected<std::uint8_t>(loop, base, src_dim_stride, begin, end);
      case 4: return copy_selected<std::uint32_t>(loop, base, src_dim_stride, begin, end);
      default: return copy_selected<std::uint64_t>(loop, base, src_dim_stride, begin, end);
    }
  };
  parallel_ranges(numel, kElementwiseGrain, copy_range);
}

}  // namespace

void IndexSelect(const KernelCall& c) {
  const int dim = static_cast<int>(c.node->attrs.i[0]);
  KILN_CHECK(c.in[1].geo.ndim == 1, "index_select index has ", c.in[1].geo.ndim, " dims");
  std::int64_t index_strides[trace::kMaxDims] = {};
  if (dim >= 0 && dim < trace::kMaxDims) index_strides[dim] = c.in[1].geo.strides[0];
  run_index_op(c, index_strides);
}

void Gather(const KernelCall& c) {
  KILN_CHECK(c.in[1].geo.ndim == c.out.geo.ndim, "gather index has ", c.in[1].geo.ndim, " dims");
  run_index_op(c, c.in[1].geo.strides);
}

// Serial: positions may repeat, and repeats must add up in a fixed order
// so that results do not depend on the thread split.
void ScatterAdd(const KernelCall& c) {
  const TensorArg &self = c.in[0], &index = c.in[1], &src = c.in[2], &out = c.out;
  const int dim = static_cast<int>(c.node->attrs.i[0]);
  KILN_CHECK(dim >= 0 && dim < out.geo.ndim && index.geo.ndim == out.geo.ndim && src.geo.ndim == out.geo.ndim,
             "dim ", dim, " of ", trace::shape_str(out.geo.shape()));
  KILN_CHECK(self.dtype == out.dtype && src.dtype == out.dtype, "self ", self.dtype, " src ", src.dtype);
  check_indices(c, dim, out.geo.sizes[dim]);
  if (self.data != out.data) copy_elements(out, self);  // an aliasing self has out's geometry (the engine's rule)
  const std::int64_t n = index.numel();
  if (n == 0) return;
  visit_dtype<kAllTypes>(out.dtype, "scatter_add", [&]<class T>() {
    StridedLoop loop;
    loop.ndim = index.geo.ndim;
    loop.operands = 3;
    for (int d = 0; d < loop.ndim; ++d) {
      loop.sizes[d] = index.geo.sizes[d];
      loop.strides[0][d] = d == dim ? 0 : out.geo.strides[d] * static_cast<std::int64_t>(sizeof(T));
      loop.strides[1][d] = src.geo.strides[d] * static_cast<std::int64_t>(sizeof(T));
      loop.strides[2][d] = index.geo.strides[d] * 8;
    }
    loop.coalesce();
    const std::int64_t out_stride = loop.inner_stride(0), src_stride = loop.inner_stride(1),
                       index_stride = loop.inner_stride(2);
    const std::int64_t dim_stride = out.geo.strides[dim] * static_cast<std::int64_t>(sizeof(T));
    for_each_run(loop, 0, n, [&](const std::int64_t* offsets, std::int64_t, std::int64_t count) {
      for (std::int64_t j = 0; j < count; ++j) {
        std::int64_t v;
        std::memcpy(&v, index.data + offsets[2] + j * index_stride, 8);
        T* o = reinterpret_cast<T*>(out.data + offsets[0] + j * out_stride + v * dim_stride);
        const T s = *reinterpret_cast<const T*>(src.data + offsets[1] + j * src_stride);
        if constexpr (std::is_same_v<T, bool>) *o = *o || s;
        else *o = static_cast<T>(*o + s);
      }
    });
  });
}

}  // namespace kiln::jit::kernels

#include "trace/views.h"

#include <optional>

#include <kiln/error.h>

#include "trace/object_pool.h"
#include "trace/record.h"

namespace kiln::trace {
namespace {

// Strides that let `shape` view memory laid out as `g`, if any exist
// (LibTorch's computeStride): dims are grouped into chunks that are each
// contiguous in memory, and the new shape must split along those chunks.
std::optional<Geometry> restride(const Geometry& g, IntArrayRef shape) {
  Geometry out;
  out.ndim = static_cast<std::int32_t>(shape.size());
  out.offset = g.offset;
  for (int d = 0; d < out.ndim; ++d) out.sizes[d] = shape[d];
  if (g.ndim == 0 || g.numel() == 0) {
    std::int64_t stride = 1;
    for (int d = out.ndim - 1; d >= 0; --d) {
      out.strides[d] = stride;
      stride *= std::max<std::int64_t>(shape[d], 1);
    }
    return out;
  }
  int view_d = out.ndim - 1;
  std::int64_t chunk_base_stride = g.strides[g.ndim - 1];
  std::int64_t tensor_numel = 1, view_numel = 1;
  for (int tensor_d = g.ndim - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= g.sizes[tensor_d];
    if (tensor_d == 0 ||
        (g.sizes[tensor_d - 1] != 1 && g.strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        out.strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = g.strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

}  // namespace

TensorRef alias(const TensorImpl& x, const Geometry& g) {
  auto out = make_pooled<TensorImpl>();
  out->storage = x.storage;
  out->geo = g;
  out->dtype = x.dtype;
  return out;
}

std::vector<std::int64_t> infer_size(IntArrayRef shape, std::int64_t numel, const char* op) {
  std::vector<std::int64_t> out = shape.vec();
  int infer = -1;
  std::int64_t known = 1;
  for (std::size_t d = 0; d < out.size(); ++d) {
    if (out[d] == -1) {
      if (infer >= 0) throw ShapeError(detail::cat("[", op, "] only one dimension can be inferred in ", shape));
      infer = static_cast<int>(d);
    } else if (out[d] < 0) {
      throw ShapeError(detail::cat("[", op, "] invalid shape dimension ", out[d], " in ", shape));
    } else if (__builtin_mul_overflow(known, out[d], &known)) {
      throw ShapeError(detail::cat("[", op, "] shape ", shape, ": number of elements overflows int64"));
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0)
      throw ShapeError(detail::cat("[", op, "] shape ", shape, " is invalid for input of size ", numel));
    out[infer] = numel / known;
  } else if (known != numel) {
    throw ShapeError(detail::cat("[", op, "] shape ", shape, " is invalid for input of size ", numel));
  }
  if (out.size() > static_cast<std::size_t>(kMaxDims))
    throw ShapeError(detail::cat("[", op, "] shape ", shape, " has more than ", kMaxDims, " dims"));
  return out;
}

TensorRef view(const TensorImpl& x, IntArrayRef shape) {
  std::vector<std::int64_t> sizes = infer_size(shape, x.geo.numel(), "view");
  std::optional<Geometry> g = restride(x.geo, sizes);
  if (!g)
    throw ShapeError(detail::cat("[view] shape ", shape, " is not compatible with the input's size ", x.geo.shape(),
                                 " and stride ", x.geo.stride(),
                                 " (at least one dimension spans two contiguous subspaces); use reshape() instead"));
  return alias(x, *g);
}

TensorRef reshape(const TensorImpl& x, IntArrayRef shape) {
  std::vector<std::int64_t> sizes = infer_size(shape, x.geo.numel(), "reshape");
  if (std::optional<Geometry> g = restride(x.geo, sizes)) return alias(x, *g);
  TensorRef copy = convert(x, x.dtype);
  return alias(*copy, *restride(copy->geo, sizes));
}

TensorRef flatten(const TensorImpl& x, std::int64_t start_dim, std::int64_t end_dim) {
  int nd = x.geo.ndim;
  if (nd == 0) return reshape(x, {1});
  int s = wrap_dim(start_dim, nd, "flatten"), e = wrap_dim(end_dim, nd, "flatten");
  if (s > e)
    throw IndexError(detail::cat("[flatten] start_dim ", start_dim, " comes after end_dim ", end_dim, " for shape ",
                                 x.geo.shape()));
  std::vector<std::int64_t> shape;
  for (int d = 0; d < s; ++d) shape.push_back(x.geo.sizes[d]);
  std::int64_t merged = 1;
  for (int d = s; d <= e; ++d) merged *= x.geo.sizes[d];
  shape.push_back(merged);
  for (int d = e + 1; d < nd; ++d) shape.push_back(x.geo.sizes[d]);
  return reshape(x, shape);
}

TensorRef permute(const TensorImpl& x, IntArrayRef dims) {
  int nd = x.geo.ndim;
  if (static_cast<int>(dims.size()) != nd)
    throw ShapeError(detail::cat("[permute] dims ", dims, " do not match the ", nd, " dims of shape ", x.geo.shape()));
  Geometry g = x.geo;
  bool seen[kMaxDims] = {};
  for (int i = 0; i < nd; ++i) {
    int d = wrap_dim(dims[i], nd, "permute");
    if (seen[d]) throw ValueError(detail::cat("[permute] dim ", d, " repeats in ", dims));
    seen[d] = true;
    g.sizes[i] = x.geo.sizes[d];
    g.strides[i] = x.geo.strides[d];
  }
  return alias(x, g);
}

TensorRef transpose(const TensorImpl& x, std::int64_t dim0, std::int64_t dim1) {
  Geometry g = x.geo;
  if (g.ndim == 0) {
    wrap_dim(dim0, 0, "transpose");
    wrap_dim(dim1, 0, "transpose");
    return alias(x, g);
  }
  int a = wrap_dim(dim0, g, "transpose"), b = wrap_dim(dim1, g, "transpose");
  std::swap(g.sizes[a], g.sizes[b]);
  std::swap(g.strides[a], g.strides[b]);
  return alias(x, g);
}

TensorRef t(const TensorImpl& x) {
  if (x.geo.ndim > 2)
    throw ShapeError(detail::cat("[t] expects a tensor with <= 2 dimensions, got shape ", x.geo.shape()));
  return x.geo.ndim < 2 ? alias(x, x.geo) : transpose(x, 0, 1);
}

TensorRef expand(const TensorImpl& x, IntArrayRef sizes) {
  int nd = static_cast<int>(sizes.size());
  if (nd < x.geo.ndim)
    throw ShapeError(detail::cat("[expand] the number of sizes ", sizes, " must be at least the tensor's ",
                                 x.geo.ndim, " dims (shape ", x.geo.shape(), ")"));
  if (nd > kMaxDims) throw ShapeError(detail::cat("[expand] ", sizes, " has more than ", kMaxDims, " dims"));
  Geometry g;
  g.ndim = nd;
  g.offset = x.geo.offset;
  int lead = nd - x.geo.ndim;
  for (int d = 0; d < nd; ++d) {
    int src = d - lead;
    std::int64_t want = sizes[d];
    if (src < 0) {
      if (want < 0)
        throw ShapeError(detail::cat("[expand] size ", want, " is not allowed for the new leading dim ", d,
                                     " of ", sizes));
      g.sizes[d] = want;
      g.strides[d] = 0;
      continue;
    }
    std::int64_t have = x.geo.sizes[src];
    if (want == -1 || want == have) {
      g.sizes[d] = have;
      g.strides[d] = x.geo.strides[src];
    } else if (have == 1 && want >= 0) {
      g.sizes[d] = want;
      g.strides[d] = 0;
    } else {
      throw ShapeError(detail::cat("[expand] the expanded size ", want, " must match the existing size ", have,
                                   " at non-singleton dim ", d, " (shape ", x.geo.shape(), " to ", sizes, ")"));
    }
  }
  Geometry::contiguous(g.shape(), "expand");  // the element count must fit in int64
  return alias(x, g);
}

TensorRef squeeze(const TensorImpl& x) {
  Geometry g;
  g.offset = x.geo.offset;
  for (int d = 0; d < x.geo.ndim; ++d) {
    if (x.geo.sizes[d] == 1) continue;
    g.sizes[g.ndim] = x.geo.sizes[d];
    g.strides[g.ndim] = x.geo.strides[d];
    ++g.ndim;
  }
  return alias(x, g);
}

TensorRef squeeze(const TensorImpl& x, std::int64_t dim) {
  if (x.geo.ndim == 0) {
    wrap_dim(dim, 0, "squeeze");
    return alias(x, x.geo);
  }
  int d = wrap_dim(dim, x.geo, "squeeze");
  if (x.geo.sizes[d] != 1) return alias(x, x.geo);
  Geometry g = x.geo;
  for (int i = d; i + 1 < g.ndim; ++i) {
    g.sizes[i] = g.sizes[i + 1];
    g.strides[i] = g.strides[i + 1];
  }
  --g.ndim;
  return alias(x, g);
}

TensorRef unsqueeze(const TensorImpl& x, std::int64_t dim) {
  int nd = x.geo.ndim;
  if (nd + 1 > kMaxDims) throw ShapeError(detail::cat("[unsqueeze] shape ", x.geo.shape(), " already has ", nd, " dims"));
  int d = wrap_dim(dim, nd + 1, "unsqueeze");
  Geometry g = x.geo;
  for (int i = nd; i > d; --i) {
    g.sizes[i] = g.sizes[i - 1];
    g.strides[i] = g.strides[i - 1];
  }
  g.sizes[d] = 1;
  g.strides[d] = d + 1 <= nd ? g.sizes[d + 1] * g.strides[d + 1] : 1;
  ++g.ndim;
  return alias(x, g);
}

TensorRef slice(const TensorImpl& x, std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step) {
  if (x.geo.ndim == 0) throw IndexError("[slice] cannot slice a zero-dim tensor");
  int d = wrap_dim(dim, x.geo, "slice");
  if (step < 1) throw ValueError(detail::cat("[slice] step must be positive, got ", step));
  std::int64_t n = x.geo.sizes[d];
  auto clamp = [n](std::int64_t i) {
    if (i < 0) i += n;
    return std::min(std::max<std::int64_t>(i, 0), n);
  };
  std::int64_t s = clamp(start), e = std::max(clamp(end), s);
  Geometry g = x.geo;
  g.offset += s * g.strides[d];
  g.sizes[d] = (e - s + step - 1) / step;
  g.strides[d] *= step;
  return alias(x, g);
}

TensorRef narrow(const TensorImpl& x, std::int64_t dim, std::int64_t start, std::int64_t length) {
  if (x.geo.ndim == 0) throw IndexError("[narrow] cannot narrow a zero-dim tensor");
  int d = wrap_dim(dim, x.geo, "narrow");
  std::int64_t n = x.geo.sizes[d];
  if (start < -n || start > n)
    throw IndexError(detail::cat("[narrow] start ", start, " is out of range for dim ", d, " of size ", n));
  if (start < 0) start += n;
  if (length < 0 || start + length > n)
    throw IndexError(detail::cat("[narrow] start ", start, " + length ", length, " exceeds dim ", d, " of size ", n,
                                 " (shape ", x.geo.shape(), ")"));
  return slice(x, d, start, start + length, 1);
}

TensorRef select(const TensorImpl& x, std::int64_t dim, std::int64_t index) {
  if (x.geo.ndim == 0) throw IndexError("[select] cannot select from a zero-dim tensor");
  int d = wrap_dim(dim, x.geo, "select");
  std::int64_t n = x.geo.sizes[d];
  if (index < -n || index >= n)
    throw IndexError(detail::cat("[select] index ", index, " is out of range for dim ", d, " of size ", n,
                                 " (shape ", x.geo.shape(), ")"));
  if (index < 0) index += n;
  Geometry g = x.geo;
  g.offset += index * g.strides[d];
  for (int i = d; i + 1 < g.ndim; ++i) {
    g.sizes[i] = g.sizes[i + 1];
    g.strides[i] = g.strides[i + 1];
  }
  --g.ndim;
  return alias(x, g);
}

}  // namespace kiln::trace

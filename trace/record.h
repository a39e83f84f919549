// Recording ops: shape and dtype rules applied at the call (errors thrown
// there, from the user's op), then one node appended to the calling thread's
// trace buffer. The frontend's op functions are thin wrappers over these.
#pragma once

#include <cstdint>
#include <initializer_list>

#include <kiln/array_ref.h>
#include <kiln/scalar.h>

#include "profiler/counters.h"
#include "trace/node.h"
#include "trace/tensor_impl.h"
#include "trace/window.h"

namespace kiln::trace {

/// An operand as an op receives it: a tensor or a plain number.
struct Input {
  const TensorImpl* tensor = nullptr;
  Scalar scalar;
  Input(const TensorImpl& t) : tensor(&t) {}
  Input(Scalar s) : scalar(s) {}
};

/// Unary, binary and ternary elementwise ops, with NumPy broadcasting and
/// LibTorch's type promotion (numbers rank below zero-dim tensors, which
/// rank below tensors with dims, unless of a higher category).
TensorRef elementwise(OpId op, std::initializer_list<Input> inputs, Attrs attrs = {});
/// In-place form: the result is written through `self`'s view. The result
/// type must be castable to self's dtype (no float into int, no int into bool).
void elementwise_into(OpId op, const char* name, const TensorImpl& self, std::initializer_list<Input> inputs,
                      Attrs attrs = {});

/// A creation op (Fill, Iota, ...) with its scalar parameters; `user_op`
/// ("zeros", "full", ...) names the call in error messages.
TensorRef create(OpId op, IntArrayRef shape, ScalarType dtype, std::initializer_list<Scalar> params,
                 const char* user_op);
/// fill_ / zero_: writes `value` through `self`'s view.
void fill_into(const TensorImpl& self, Scalar value, const char* name);
/// A contiguous copy converted to `dtype` (clone, contiguous, to).
TensorRef convert(const TensorImpl& x, ScalarType dtype);
/// copy_: `src` broadcast to `self`'s shape and converted to its dtype.
void copy_into(const TensorImpl& self, const TensorImpl& src);

/// The bit mask of `dims` (empty: all of `ndim`) a reduction node records;
/// IndexError for a dim out of range, ValueError for a repeated one.
std::int64_t reduction_mask(IntArrayRef dims, int ndim, const char* op);
/// Reduction over `dims` (empty: all dims), negative dims wrapping.
TensorRef reduce(OpId op, const TensorImpl& x, IntArrayRef dims, bool keepdim);
/// Batched matrix product of [..., M, K] and [..., K, N] (each at least 2-D),
/// batch dims broadcast. `name` is the user's op for messages.
TensorRef matmul(const TensorImpl& a, const TensorImpl& b, const char* name);
TensorRef index_select(const TensorImpl& src, std::int64_t dim, const TensorImpl& index);
TensorRef gather(const TensorImpl& src, std::int64_t dim, const TensorImpl& index);
/// A new tensor: self, plus src[p] added at p with p[dim] = index[p], for
/// every position p of `index` (which is no larger than src, nor than self
/// outside dim). LibTorch's checks, with the shapes in the message.
TensorRef scatter_add(const TensorImpl& self, std::int64_t dim, const TensorImpl& index, const TensorImpl& src);
/// Running sums (op Cumsum) or products (Cumprod) along `dim` in x's dtype
/// (the frontend casts to LibTorch's type first), from the last element
/// towards the first when `reverse`.
TensorRef cumulative(OpId op, const TensorImpl& x, std::int64_t dim, bool reverse);
/// The int64 positions that sort each line of `x` along `dim`: a stable
/// sort, NaN greater than every number. `op` names the user's call.
TensorRef argsort(const TensorImpl& x, std::int64_t dim, bool descending, const char* op);
/// The sliding windows of a 4-d x [N, C, H, W] as columns (op Im2col):
/// [N, C*kh*kw, oh*ow], row c*kh*kw + i*kw + j holding input channel c at
/// kernel offset (i, j) for every window, zero where the window reaches
/// into the padding. ValueError for a window value out of range (kernel,
/// stride, dilation < 1, padding < 0, any > 65535), ShapeError naming `op`
/// and x's shape for another rank or a window that does not fit.
TensorRef im2col(const TensorImpl& x, const Window2d& window, const char* op);
/// The adjoint (op Col2im): columns [N, C*kh*kw, L] summed back into
/// [N, C, size[0], size[1]], where L must be the number of windows of that
/// size. The same errors, naming the columns' shape.
TensorRef col2im(const TensorImpl& columns, const std::int64_t size[2], const Window2d& window, const char* op);

/// Makes `x`'s storage safe to read (and, with `for_write`, to write) from
/// the calling thread: flushes the pending writes (and reads) it depends on.
void materialize(const TensorImpl& x, profiler::CutReason why, bool for_write);

/// The dtype LibTorch's result_type gives these operands.
ScalarType result_type(std::initializer_list<Input> inputs);
/// Wraps a possibly negative dim into [0, ndim) (a zero-dim tensor takes 0
/// and -1); IndexError naming `op` otherwise, and with a geometry, its shape.
int wrap_dim(std::int64_t dim, int ndim, const char* op);
int wrap_dim(std::int64_t dim, const Geometry& geo, const char* op);

}  // namespace kiln::trace

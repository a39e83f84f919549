// In-place writes through a view of a tensor autograd tracks (LibTorch's
// CopySlices): the base's history becomes "the base, with the view's region
// replaced by the op's result", and the view is re-derived from it.
#pragma once

#include "frontend/autograd/meta.h"

namespace kiln::autograd {

/// `op_node` computed the new value of `view` (edge 0: the view's old
/// value); makes it part of the view base's history.
void rebase_view_history(const Tensor& view, std::shared_ptr<Node> op_node);

/// When the storage of `view` was written since its grad_fn was set (an
/// in-place op on its base or on another view), re-derives its history from
/// the base's current one (AsStridedBackward0), as LibTorch does.
void refresh_view_history(const trace::TensorImpl& view);

/// Zeros of `shape` with `g` in the region that slice (or select, with
/// `select`) along `dim` from `start` by `step` reads: the backward of those
/// views, differentiable again (its gradient is the same view).
Tensor embed_region(const Tensor& g, IntArrayRef shape, std::int64_t dim, std::int64_t start, std::int64_t step,
                    bool select);

/// `t`'s region viewed through `geo` (relative to a contiguous tensor of
/// `t`'s shape): a tensor sharing `t`'s storage, without history.
Tensor strided_region(const Tensor& t, const trace::Geometry& geo);

}  // namespace kiln::autograd

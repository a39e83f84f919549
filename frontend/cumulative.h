// The cumsum and cumprod primitives with their gradient history, shared by
// Tensor::cumsum / cumprod and by their gradients (cumsum's is a running
// sum from the other end).
#pragma once

#include <cstdint>

#include <kiln/frontend/tensor.h>

#include "trace/op.h"

namespace kiln::frontend {

/// Running sums (op Cumsum) or products (Cumprod) of `x` along `dim` in x's
/// dtype, from the last element towards the first when `reverse`.
Tensor cumulative(trace::OpId op, const Tensor& x, std::int64_t dim, bool reverse = false);

}  // namespace kiln::frontend

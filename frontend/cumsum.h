// The cumsum primitive with its gradient history, shared by Tensor::cumsum
// and by cumsum's own gradient (a running sum from the other end).
#pragma once

#include <cstdint>

#include <kiln/frontend/tensor.h>

namespace kiln::frontend {

/// Running sums of `x` along `dim` in x's dtype, from the last element
/// towards the first when `reverse`.
Tensor cumsum_along(const Tensor& x, std::int64_t dim, bool reverse);

}  // namespace kiln::frontend

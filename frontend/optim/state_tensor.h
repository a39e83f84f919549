// The tensors an optimizer keeps per parameter (momentum, running averages).
#pragma once

#include <kiln/frontend/tensor.h>

namespace kiln::optim {

/// Marks `t` as optimizer state and returns it: under a memory budget it is
/// never evicted and keeps no recipe. It lives as long as the training and
/// is written in place every step; a recipe (momentum made by cloning the
/// first gradient) would hold that gradient, and the backward pass behind
/// it, for as long as the state is evicted.
Tensor optimizer_state(Tensor t);

}  // namespace kiln::optim

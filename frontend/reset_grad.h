// Resetting a parameter's gradient, as Module::zero_grad and
// Optimizer::zero_grad do: undefined (set_to_none), or zeros in place.
#pragma once

#include <kiln/autograd.h>
#include <kiln/frontend/tensor.h>

namespace kiln::frontend {

inline void reset_grad(const Tensor& p, bool set_to_none) {
  Tensor& g = p.mutable_grad();
  if (!g.defined()) return;
  if (set_to_none) {
    g = Tensor();
    return;
  }
  NoGradGuard no_grad;
  g = g.detach();
  g.zero_();
}

}  // namespace kiln::frontend

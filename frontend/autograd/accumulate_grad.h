// AccumulateGrad: the node at a leaf that requires grad. Gradients arriving
// there are added into the leaf's .grad (a recorded add, like any op).
#pragma once

#include <mutex>
#include <vector>

#include "frontend/autograd/meta.h"

namespace kiln::autograd {

class AccumulateGrad final : public Node {
 public:
  AccumulateGrad(std::shared_ptr<AutogradMeta> leaf, IntArrayRef shape, ScalarType dtype);
  std::string name() const override { return "AccumulateGrad"; }
  variable_list apply(variable_list&& grads) override;
  /// Adds `grad` into `meta.grad` (kept as a graph of its own under create_graph).
  static void accumulate(AutogradMeta& meta, Tensor grad);

 private:
  std::shared_ptr<AutogradMeta> leaf_;
  std::vector<std::int64_t> shape_;
  ScalarType dtype_;
};

}  // namespace kiln::autograd

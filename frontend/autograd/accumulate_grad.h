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

  /// While a kiln::compile'd call is traced, the leaves whose .grad this
  /// thread's backward sets are noted (once each), so that its replays can
  /// set them too. start clears the list; take ends noting and returns it.
  static void start_noting_leaves();
  static std::vector<std::weak_ptr<AutogradMeta>> take_noted_leaves();

 private:
  std::shared_ptr<AutogradMeta> leaf_;
  std::vector<std::int64_t> shape_;
  ScalarType dtype_;
};

}  // namespace kiln::autograd

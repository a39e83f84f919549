// FunctionNode: a node whose gradient is a function given where the op is
// recorded. Views use it (their backward is the inverse reshaping), and so
// do the composite ops that have a direct formula (mean, softmax,
// log_softmax, cat, layer_norm), which is shorter than the chain of their
// primitives' or saves less.
#pragma once

#include <functional>
#include <initializer_list>
#include <vector>

#include "frontend/autograd/meta.h"
#include "frontend/autograd/saved_variable.h"

namespace kiln::autograd {

class FunctionNode final : public Node {
 public:
  /// grad: of the result; saved: the tensors saved at record time, the
  /// result last when it was saved. Returns one gradient per input.
  using Backward = std::function<variable_list(const Tensor& grad, const variable_list& saved)>;

  FunctionNode(const char* name, edge_list edges, Backward backward)
      : Node(std::move(edges)), name_(name), backward_(std::move(backward)) {}
  std::string name() const override { return name_; }
  variable_list apply(variable_list&& grads) override;
  void release_variables() override;

  std::vector<SavedVariable> saved;

 private:
  const char* name_;
  Backward backward_;
};

/// Whether any of `inputs` requires grad while grad mode is on.
bool any_requires_grad(const std::vector<Tensor>& inputs);

/// Gives `out` a FunctionNode over `inputs` (call when any_requires_grad).
/// `save` lists tensors the backward reads; `save_result` appends `out`.
void record_function(const char* name, const std::vector<Tensor>& inputs, Tensor& out,
                     FunctionNode::Backward backward, const std::vector<Tensor>& save = {},
                     bool save_result = false);

/// A view `out` of `in`: history through `backward` when `in` requires grad,
/// and the link to its base for in-place writes through it.
void record_view(const char* name, const Tensor& in, Tensor& out, FunctionNode::Backward backward);

}  // namespace kiln::autograd

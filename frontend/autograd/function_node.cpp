#include "frontend/autograd/function_node.h"

namespace kiln::autograd {

variable_list FunctionNode::apply(variable_list&& grads) {
  if (!grads[0].defined()) return variable_list(next_edges_.size());
  variable_list values;
  values.reserve(saved.size());
  for (const SavedVariable& s : saved) values.push_back(s.unpack(shared_from_this(), name_));
  variable_list out = backward_(grads[0], values);
  out.resize(next_edges_.size());
  for (std::size_t k = 0; k < out.size(); ++k)
    if (!next_edges_[k].is_valid()) out[k] = Tensor();
  return out;
}

void FunctionNode::release_variables() {
  for (SavedVariable& s : saved) s.release();
}

bool any_requires_grad(const std::vector<Tensor>& inputs) {
  if (!grad_mode()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && requires_grad(*t.impl())) return true;
  return false;
}

void record_function(const char* name, const std::vector<Tensor>& inputs, Tensor& out,
                     FunctionNode::Backward backward, const std::vector<Tensor>& save, bool save_result) {
  edge_list edges;
  edges.reserve(inputs.size());
  for (const Tensor& t : inputs) edges.push_back(t.defined() ? gradient_edge(*t.impl()) : Edge{});
  auto node = std::make_shared<FunctionNode>(name, std::move(edges), std::move(backward));
  node->saved.reserve(save.size() + save_result);
  for (const Tensor& t : save) node->saved.emplace_back(t, false);
  set_history(*out.impl(), node);
  if (save_result) node->saved.emplace_back(out, true);
}

void record_view(const char* name, const Tensor& in, Tensor& out, FunctionNode::Backward backward) {
  if (!in.impl()->autograd || out.impl() == in.impl()) return;
  if (out.impl()->storage == in.impl()->storage) set_view_base(*out.impl(), *in.impl(), in.impl());
  if (grad_mode() && requires_grad(*in.impl())) record_function(name, {in}, out, std::move(backward));
}

}  // namespace kiln::autograd

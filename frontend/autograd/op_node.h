// OpNode: the backward node of one primitive op, and the calls with which
// the frontend's op functions give their results history. The formula
// comes from the gradient table (formulas.h), keyed by the op.
#pragma once

#include <initializer_list>

#include "frontend/autograd/formulas.h"
#include "frontend/autograd/meta.h"
#include "frontend/autograd/saved_variable.h"
#include "trace/record.h"

namespace kiln::autograd {

class OpNode final : public Node {
 public:
  OpNode(trace::OpId op, const trace::Attrs& attrs, edge_list edges);
  std::string name() const override;
  variable_list apply(variable_list&& grads) override;
  void release_variables() override;

  trace::OpId op;
  trace::Attrs attrs;
  std::uint8_t arity = 0;
  SavedVariable saved[trace::kMaxArity];
  SavedVariable result;
  Scalar scalars[trace::kMaxArity];
  bool is_tensor[trace::kMaxArity] = {};
  // Operand shapes and dtypes: gradients are reduced and cast back to them.
  trace::Geometry shapes[trace::kMaxArity];
  ScalarType dtypes[trace::kMaxArity] = {};
  trace::Geometry out_shape;
  ScalarType out_dtype = ScalarType::Float32;
};

/// Whether a result of these operands gets history (grad mode on and an
/// operand requires grad): the one check every op pays.
inline bool needs_history(std::initializer_list<trace::Input> inputs) {
  if (!grad_mode()) return false;
  for (const trace::Input& in : inputs)
    if (in.tensor && in.tensor->autograd && requires_grad(*in.tensor)) return true;
  return false;
}

/// Gives `out`, the result of primitive `op` over `inputs`, its OpNode.
/// Call only when needs_history(inputs).
void record_op(trace::OpId op, std::initializer_list<trace::Input> inputs, const trace::Attrs& attrs, Tensor& out);

/// Before an in-place write into `self`: rejects writes autograd cannot
/// follow (a leaf that requires grad, or a view of one) and, when history
/// is recorded (`track`) and the op's formula reads its first operand,
/// returns a copy of self's old value.
Tensor prepare_inplace(trace::OpId op, const Tensor& self, const char* name, bool track);

/// The handle of a tensor the frontend holds (TensorImpls are shared-owned).
inline Tensor handle_of(const trace::TensorImpl& t) {
  return Tensor(std::const_pointer_cast<trace::TensorImpl>(t.shared_from_this()));
}
/// Makes `node` (edge 0: self's old value) the history of `self` after an
/// in-place write; through a view, of the view's base as well.
void rebase_history(const Tensor& self, std::shared_ptr<Node> node);
/// After the write: self's history becomes the op applied to its old
/// history (`old_self`: from prepare_inplace). `inputs` starts with self.
void record_inplace(trace::OpId op, std::initializer_list<trace::Input> inputs, const trace::Attrs& attrs,
                    const Tensor& self, const Tensor& old_self);

}  // namespace kiln::autograd

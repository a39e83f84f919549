#include "frontend/autograd/op_node.h"

#include <kiln/error.h>
#include <kiln/frontend/functions.h>

#include "frontend/autograd/copy_slices.h"
#include "frontend/autograd/node_hooks.h"
#include "trace/object_pool.h"

namespace kiln::autograd {

using trace::OpId;

OpNode::OpNode(OpId op_, const trace::Attrs& attrs_, edge_list edges)
    : Node(std::move(edges)), op(op_), attrs(attrs_) {}

std::string OpNode::name() const {
  // LibTorch numbers the whole-tensor overload of sum and prod 0, the one with dims 1.
  bool whole = (op == OpId::Sum || op == OpId::Prod) && attrs.i[1] == 0 &&
               attrs.i[0] == (std::int64_t{1} << shapes[0].ndim) - 1;
  if (whole) return op == OpId::Sum ? "SumBackward0" : "ProdBackward0";
  if (op == OpId::MatMul && (shapes[0].ndim > 2 || shapes[1].ndim > 2)) return "BmmBackward0";
  if (op == OpId::Copy) return dtypes[0] == out_dtype ? "CloneBackward0" : "ToCopyBackward0";
  // A number operand selects another overload: x + 2 is AddBackward1, 2 - x
  // RsubBackward1; pow numbers (tensor, number) 0, (tensor, tensor) 1,
  // (number, tensor) 2; fmod and remainder by a number are 0 (a number
  // dividend is wrapped as a tensor by LibTorch: RemainderBackward1).
  if ((op == OpId::Fmod || op == OpId::Remainder) && !is_tensor[1]) {
    std::string base = grad_formula(op).node_name;
    base.back() = '0';
    return base;
  }
  if (op == OpId::Pow) return is_tensor[0] ? (is_tensor[1] ? "PowBackward1" : "PowBackward0") : "PowBackward2";
  if (op == OpId::Add || op == OpId::Sub || op == OpId::Mul || op == OpId::Div) {
    if (op == OpId::Sub && !is_tensor[0]) return "RsubBackward1";
    if (!is_tensor[0] || !is_tensor[1]) {
      std::string base = grad_formula(op).node_name;
      base.back() = '1';
      return base;
    }
  }
  return grad_formula(op).node_name;
}

void OpNode::release_variables() {
  for (SavedVariable& s : saved) s.release();
  result.release();
}

variable_list OpNode::apply(variable_list&& grads) {
  variable_list out(arity);
  const Tensor& g = grads[0];
  if (!g.defined()) return out;
  Tensor gi[trace::kMaxArity];
  grad_formula(op).fn(GradContext(*this, shared_from_this()), g, gi);
  for (int k = 0; k < arity; ++k) {
    if (!gi[k].defined() || !next_edges_[k].is_valid()) continue;
    Tensor r = sum_to(gi[k], shapes[k].shape());
    if (r.dtype() != dtypes[k]) r = r.to(dtypes[k]);
    out[k] = std::move(r);
  }
  return out;
}

// --- GradContext -----------------------------------------------------------

Tensor GradContext::input(int k) const { return node_.saved[k].unpack(self_, node_.name().c_str()); }
Scalar GradContext::scalar(int k) const { return node_.scalars[k]; }
bool GradContext::is_tensor(int k) const { return node_.is_tensor[k]; }
Tensor GradContext::result() const { return node_.result.unpack(self_, node_.name().c_str()); }
bool GradContext::needs(int k) const { return node_.next_edges()[k].is_valid(); }
IntArrayRef GradContext::input_shape(int k) const { return node_.shapes[k].shape(); }
bool GradContext::input_is_column_major(int k) const {
  const trace::Geometry& g = node_.shapes[k];
  if (g.ndim < 2) return false;
  const int r = g.ndim - 2, c = g.ndim - 1;
  return g.strides[r] == 1 && g.strides[c] == g.sizes[r] && g.sizes[r] > 1 && g.sizes[c] > 1;
}
IntArrayRef GradContext::output_shape() const { return node_.out_shape.shape(); }
const trace::Attrs& GradContext::attrs() const { return node_.attrs; }
trace::OpId GradContext::op() const { return node_.op; }
Tensor GradContext::times(const Tensor& g, int k) const { return is_tensor(k) ? g * input(k) : g * scalar(k); }

// --- Recording ---------------------------------------------------------------

namespace {

// The node of `op` over `inputs`; operand 0 saved from `first` when given
// (an in-place op's old value) and its edge taken from `first_edge`.
std::shared_ptr<OpNode> make_node(OpId op, std::initializer_list<trace::Input> inputs, const trace::Attrs& attrs,
                                  const Tensor* first, const Edge* first_edge) {
  const GradFormula& formula = grad_formula(op);
  KILN_CHECK(formula.fn, "op ", trace::name(op), " has no gradient and cannot be recorded");
  edge_list edges;
  edges.reserve(inputs.size());
  int k = 0;
  for (const trace::Input& in : inputs) {
    if (k == 0 && first_edge) edges.push_back(*first_edge);
    else if (in.tensor) edges.push_back(gradient_edge(*in.tensor));
    else edges.emplace_back();
    ++k;
  }
  // Pooled: a recorded op makes one node and its graph frees them all at once.
  auto node = trace::make_pooled<OpNode>(op, attrs, std::move(edges));
  node->arity = static_cast<std::uint8_t>(inputs.size());
  k = 0;
  for (const trace::Input& in : inputs) {
    if (in.tensor) {
      const trace::TensorImpl& t = *in.tensor;
      node->is_tensor[k] = true;
      node->shapes[k] = t.geo;
      node->dtypes[k] = t.dtype;
      if (formula.saves & saves_operand(k)) {
        // An in-place op is recorded after its write, so an operand sharing
        // the written storage (x.mul_(x)) was read one version earlier: it is
        // saved as what it now is, this node's output (held without history:
        // no reference cycle), and backward reports it modified, as LibTorch.
        const bool overwritten = first_edge && k > 0 && t.storage == inputs.begin()->tensor->storage;
        node->saved[k] = k == 0 && first ? SavedVariable(*first, overwritten) : SavedVariable(t, overwritten);
        if (overwritten) node->saved[k].saved_before_write();
      }
    } else {
      node->scalars[k] = in.scalar;
    }
    ++k;
  }
  return node;
}

}  // namespace

void record_op(OpId op, std::initializer_list<trace::Input> inputs, const trace::Attrs& attrs, Tensor& out) {
  if (!is_differentiable(op) || !is_floating_point(out.dtype())) return;
  std::shared_ptr<OpNode> node = make_node(op, inputs, attrs, nullptr, nullptr);
  node->out_shape = out.impl()->geo;
  node->out_dtype = out.dtype();
  if (grad_formula(op).saves & kSavesResult) node->result = SavedVariable(out, true);
  set_history(*out.impl(), std::move(node));
}

Tensor prepare_inplace(OpId op, const Tensor& self, const char* name, bool track) {
  const AutogradMeta* m = meta(*self.impl());
  if (m && m->requires_grad && !m->grad_fn)
    throw AutogradError(kiln::detail::cat("[", name, "] a leaf Variable that requires grad (", describe(*self.impl()),
                                    ") is being used in an in-place operation."));
  if (m && m->view_base) {
    const AutogradMeta* bm = meta(*m->view_base);
    if (bm && bm->requires_grad && !bm->grad_fn)
      throw AutogradError(kiln::detail::cat("[", name, "] a view of a leaf Variable that requires grad (",
                                      describe(*m->view_base), ") is being used in an in-place operation."));
  }
  if (!track || !is_differentiable(op) || !(grad_formula(op).saves & saves_operand(0))) return Tensor();
  return self.clone();  // the value the formula reads, before it is overwritten
}

void record_inplace(OpId op, std::initializer_list<trace::Input> inputs, const trace::Attrs& attrs, const Tensor& self,
                    const Tensor& old_self) {
  trace::TensorImpl& impl = *self.impl();
  if (!is_differentiable(op) || !is_floating_point(impl.dtype)) {
    if (AutogradMeta* m = meta(impl)) m->grad_fn = nullptr;  // the old history no longer describes the value
    return;
  }
  Edge self_edge = gradient_edge(impl);
  std::shared_ptr<OpNode> node = make_node(op, inputs, attrs, old_self.defined() ? &old_self : nullptr, &self_edge);
  node->out_shape = impl.geo;
  node->out_dtype = impl.dtype;
  if (grad_formula(op).saves & kSavesResult) node->result = SavedVariable(self, true);
  rebase_history(self, std::move(node));
}

void rebase_history(const Tensor& self, std::shared_ptr<Node> node) {
  const AutogradMeta* m = meta(*self.impl());
  if (m && m->view_base) rebase_view_history(self, std::move(node));
  else set_history(*self.impl(), std::move(node));
}

}  // namespace kiln::autograd

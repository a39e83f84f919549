#include "frontend/autograd/saved_variable.h"

#include <kiln/error.h>

#include "frontend/autograd/meta.h"
#include "trace/views.h"

namespace kiln::autograd {

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (t.defined()) save(*t.impl(), is_output);
}

SavedVariable::SavedVariable(const trace::TensorImpl& t, bool is_output) { save(t, is_output); }

void SavedVariable::save(const trace::TensorImpl& impl, bool is_output) {
  version_ = impl.storage->version();
  is_output_ = is_output;
  const AutogradMeta* m = meta(impl);
  if (is_output) {
    data_ = trace::alias(impl, impl.geo);  // same data, no history
    if (m) output_nr_ = m->output_nr;
  } else if (m && m->grad_fn) {
    // A non-leaf input is kept as its data and the history it has now, not
    // as the tensor: an in-place op on it later would make the tensor's
    // history lead back to this node, a reference cycle.
    data_ = trace::alias(impl, impl.geo);
    grad_fn_ = m->grad_fn;
    output_nr_ = m->output_nr;
  } else {
    // a leaf (its AccumulateGrad is found through it) or a constant
    data_ = std::const_pointer_cast<trace::TensorImpl>(impl.shared_from_this());
  }
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& owner, const char* node_name) const {
  if (released_)
    throw AutogradError(kiln::detail::cat(
        "[backward] Trying to backward through the graph a second time (or directly access saved tensors after "
        "they have already been freed). Saved intermediate values of the graph are freed when you call "
        ".backward() or autograd::grad(). Specify retain_graph=true if you need to backward through the graph a "
        "second time or if you need to access saved tensors after calling backward. (node ",
        node_name, ")"));
  if (!data_) return Tensor();
  std::uint32_t now = data_->storage->version();
  if (now != version_)
    throw AutogradError(kiln::detail::cat(
        "[backward] one of the variables needed for gradient computation has been modified by an inplace "
        "operation: ",
        describe(*data_), ", which is ", is_output_ ? "output " : "an input of ", is_output_ ? std::to_string(output_nr_) + " of " : "",
        node_name, ", is at version ", now, "; expected version ", version_, " instead."));
  if (!is_output_ && !grad_fn_) return Tensor(data_);
  trace::TensorRef out = trace::alias(*data_, data_->geo);
  if (grad_mode()) {
    if (grad_fn_) set_history(*out, grad_fn_, output_nr_);
    else if (owner) set_history(*out, owner, output_nr_);
  }
  return Tensor(std::move(out));
}

}  // namespace kiln::autograd

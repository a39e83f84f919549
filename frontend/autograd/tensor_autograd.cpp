// Tensor's autograd members (kiln/autograd.h).
#include <kiln/error.h>

#include "frontend/autograd/copy_slices.h"
#include "frontend/autograd/meta.h"
#include "frontend/autograd/node_hooks.h"
#include "frontend/handle.h"
#include "trace/views.h"

namespace kiln {

using autograd::AutogradMeta;
using autograd::meta;

bool Tensor::requires_grad() const { return defined() && autograd::requires_grad(*impl_); }

Tensor& Tensor::requires_grad_(bool on) {
  trace::TensorImpl& impl = *impl_;
  frontend::unwrap(*this, "requires_grad_");
  if (on && !kiln::is_floating_point(impl.dtype))
    throw DtypeError(kiln::detail::cat("[requires_grad_] only Tensors of floating point dtype can require gradients, got ",
                                 autograd::describe(impl)));
  AutogradMeta* m = meta(impl);
  if (m && m->grad_fn) {
    if (!on)
      throw AutogradError(kiln::detail::cat(
          "[requires_grad_] you can only change requires_grad flags of leaf variables (", autograd::describe(impl),
          " has a grad_fn). If you want to use a computed variable in a subgraph that doesn't require "
          "differentiation use var_no_grad = var.detach()."));
    return *this;
  }
  if (on || m) autograd::ensure_meta(impl).requires_grad = on;
  return *this;
}

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  const AutogradMeta* m = meta(frontend::unwrap(*this, "grad"));
  return m ? m->grad : undefined;
}

Tensor& Tensor::mutable_grad() const {
  frontend::unwrap(*this, "mutable_grad");
  return autograd::ensure_meta(*impl_).grad;
}

bool Tensor::is_leaf() const {
  const AutogradMeta* m = meta(frontend::unwrap(*this, "is_leaf"));
  return !m || !m->grad_fn;
}

void Tensor::retain_grad() const {
  const trace::TensorImpl& impl = frontend::unwrap(*this, "retain_grad");
  if (!autograd::requires_grad(impl))
    throw AutogradError(kiln::detail::cat("[retain_grad] can't retain_grad on Tensor that has requires_grad=False (",
                                    autograd::describe(impl), ")"));
  AutogradMeta& m = *meta(impl);
  if (m.view_base) autograd::refresh_view_history(impl);
  if (!m.grad_fn || m.retains_grad) return;  // leaves keep their gradient anyway
  m.retains_grad = true;
  m.grad_fn->hooks().retained.emplace_back(m.output_nr, std::static_pointer_cast<AutogradMeta>(impl_->autograd));
}

bool Tensor::retains_grad() const {
  const AutogradMeta* m = meta(frontend::unwrap(*this, "retains_grad"));
  return m && m->retains_grad;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  const trace::TensorImpl& impl = frontend::unwrap(*this, "grad_fn");
  const AutogradMeta* m = meta(impl);
  if (m && m->view_base) autograd::refresh_view_history(impl);
  return m ? m->grad_fn : nullptr;
}

std::int64_t Tensor::output_nr() const {
  const AutogradMeta* m = meta(frontend::unwrap(*this, "output_nr"));
  return m ? m->output_nr : 0;
}

std::uint32_t Tensor::_version() const { return frontend::unwrap(*this, "_version").storage->version(); }

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      std::optional<std::vector<Tensor>> inputs) const {
  frontend::unwrap(*this, "backward");
  autograd::backward({*this}, gradient.defined() ? std::vector<Tensor>{gradient} : std::vector<Tensor>{},
                     retain_graph, create_graph, inputs.value_or(std::vector<Tensor>{}));
}

Tensor Tensor::detach() const {
  const trace::TensorImpl& impl = frontend::unwrap(*this, "detach");
  return Tensor(trace::alias(impl, impl.geo));
}

Tensor& Tensor::detach_() {
  const trace::TensorImpl& impl = frontend::unwrap(*this, "detach_");
  AutogradMeta* m = meta(impl);
  if (!m) return *this;
  if (m->view_base)
    throw AutogradError(kiln::detail::cat("[detach_] Can't detach views in-place (", autograd::describe(impl),
                                    "). Use detach() instead."));
  m->grad_fn = nullptr;
  m->requires_grad = false;
  m->output_nr = 0;
  return *this;
}

}  // namespace kiln

#include "frontend/autograd/accumulate_grad.h"

namespace kiln::autograd {

namespace {
// Several threads may run backward over graphs sharing a leaf (a model's
// parameters); their additions into .grad take turns.
std::mutex accumulate_mutex;
}  // namespace

AccumulateGrad::AccumulateGrad(std::shared_ptr<AutogradMeta> leaf, IntArrayRef shape, ScalarType dtype)
    : Node({}, 1), leaf_(std::move(leaf)), shape_(shape.vec()), dtype_(dtype) {}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  if (!grads.empty() && grads[0].defined()) accumulate(*leaf_, std::move(grads[0]));
  return {};
}

void AccumulateGrad::accumulate(AutogradMeta& meta, Tensor grad) {
  // A gradient can be an expanded view (the backward of sum): .grad gets
  // its own dense memory, as LibTorch's layout contract asks.
  if (!grad.is_contiguous()) grad = grad.contiguous();
  std::lock_guard<std::mutex> lock(accumulate_mutex);
  if (!meta.grad.defined()) {
    meta.grad = GradMode::is_enabled() ? grad : grad.detach();
  } else {
    meta.grad = meta.grad + grad;
  }
}

}  // namespace kiln::autograd

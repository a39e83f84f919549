#include "frontend/autograd/accumulate_grad.h"

#include <utility>

#include "frontend/handle.h"
#include "trace/storage.h"

namespace kiln::autograd {

namespace {
// Several threads may run backward over graphs sharing a leaf (a model's
// parameters); their additions into .grad take turns.
std::mutex accumulate_mutex;

thread_local bool t_noting = false;
thread_local std::vector<std::weak_ptr<AutogradMeta>> t_noted;

void note(const std::shared_ptr<AutogradMeta>& leaf) {
  for (const std::weak_ptr<AutogradMeta>& w : t_noted)
    if (!w.owner_before(leaf) && !leaf.owner_before(w)) return;
  t_noted.push_back(leaf);
}
}  // namespace

void AccumulateGrad::start_noting_leaves() {
  t_noted.clear();
  t_noting = true;
}

std::vector<std::weak_ptr<AutogradMeta>> AccumulateGrad::take_noted_leaves() {
  t_noting = false;
  return std::exchange(t_noted, {});
}

AccumulateGrad::AccumulateGrad(std::shared_ptr<AutogradMeta> leaf, IntArrayRef shape, ScalarType dtype)
    : Node({}, 1), leaf_(std::move(leaf)), shape_(shape.vec()), dtype_(dtype) {}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  if (grads.empty() || !grads[0].defined()) return {};
  if (t_noting) note(leaf_);
  accumulate(*leaf_, std::move(grads[0]));
  for (const auto& hook : leaf_->post_accumulate_grad_hooks) hook(leaf_->grad);
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
  // A .grad is a leaf the optimizer reads: under a memory budget it is
  // never evicted. Evicted, its recipe would keep the whole backward pass
  // recomputable, and every parameter the optimizer then writes in place
  // would be copied for it (the residual stack at half its peak: 6.5 MiB
  // of such copies at its first step).
  if (!GradMode::is_enabled()) frontend::unwrap(meta.grad, "grad").storage->keep_resident("a gradient (.grad)");
}

}  // namespace kiln::autograd

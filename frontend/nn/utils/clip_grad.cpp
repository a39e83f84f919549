#include <kiln/nn/utils/clip_grad.h>

#include <cmath>

#include <kiln/autograd.h>
#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

namespace kiln::nn::utils {

namespace {

// LibTorch's total norm of the gradients as a 0-d tensor.
Tensor total_norm_of(const std::vector<Tensor>& grads, double norm_type) {
  if (norm_type == 0) return full({}, static_cast<double>(grads.size()), grads.front().options());
  // The infinity norm is the largest absolute element, of each gradient then of all.
  std::vector<Tensor> norms;
  norms.reserve(grads.size());
  for (const Tensor& g : grads) norms.push_back(g.norm(norm_type));
  return norms.size() == 1 ? norms.front() : stack(norms).norm(norm_type);
}

}  // namespace

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return 0.0;
  NoGradGuard no_grad;
  Tensor total_norm = total_norm_of(grads, norm_type);
  const double total = total_norm.item<double>();
  if (error_if_nonfinite && !std::isfinite(total))
    throw ValueError(kiln::detail::cat("[nn::utils::clip_grad_norm_] the total norm of order ", norm_type,
                                       " for gradients from `parameters` is non-finite, so it cannot be clipped. "
                                       "To disable this error and scale the gradients with the non-finite norm "
                                       "anyway, set `error_if_nonfinite=false`"));
  Tensor clip_coef = (max_norm / (total_norm + 1e-6)).clamp(std::nullopt, 1.0);
  for (Tensor& g : grads) g.mul_(clip_coef);
  return total;
}

double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>(parameters), max_norm, norm_type, error_if_nonfinite);
}

double clip_grad_norm_(Tensor parameter, double max_norm, double norm_type, bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{std::move(parameter)}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters) {
    Tensor g = p.grad();
    if (g.defined()) g.clamp_(-clip_value, clip_value);
  }
}

void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value) {
  clip_grad_value_(std::vector<Tensor>(parameters), clip_value);
}

void clip_grad_value_(Tensor parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{std::move(parameter)}, clip_value);
}

}  // namespace kiln::nn::utils

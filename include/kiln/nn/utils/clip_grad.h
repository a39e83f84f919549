// kiln::nn::utils::clip_grad_norm_ and clip_grad_value_: LibTorch's
// torch::nn::utils gradient clipping. Both change the gradients of the given
// parameters in place (with tensor ops under no-grad, recorded like any op);
// parameters without a gradient are skipped.
#pragma once

#include <initializer_list>
#include <vector>

#include <kiln/frontend/tensor.h>

namespace kiln::nn::utils {

/// Scales the gradients so that their total norm (the norm_type-norm of the
/// per-gradient norms; infinity: the largest absolute element; 0: the number
/// of gradients) is at most max_norm: each is multiplied by
/// min(1, max_norm / (total_norm + 1e-6)). Returns the total norm before
/// clipping as a double (LibTorch's C++ signature; 0 when no parameter has a
/// gradient). With error_if_nonfinite, a NaN or infinite total norm is a
/// ValueError and no gradient is changed.
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
double clip_grad_norm_(Tensor parameter, double max_norm, double norm_type = 2.0, bool error_if_nonfinite = false);

/// Clamps every gradient element into [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value);
void clip_grad_value_(Tensor parameter, double clip_value);

}  // namespace kiln::nn::utils

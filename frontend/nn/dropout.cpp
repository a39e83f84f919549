// Dropout: a mask drawn with rand, scaled by 1 / (1 - p), and multiplied
// into the input as an ordinary recorded op.
#include <kiln/nn/dropout.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

namespace kiln {

namespace {

void check_p(const char* op, double p) {
  if (!(p >= 0 && p <= 1))
    throw ValueError(kiln::detail::cat("[", op, "] dropout probability has to be between 0 and 1, but got p=", p));
}

std::vector<std::int64_t> feature_noise_shape(const char* op, const Tensor& input) {
  if (input.dim() < 2)
    throw ShapeError(kiln::detail::cat("[", op, "] needs an input of at least 2 dims [N, C, ...], got shape ",
                                       input.sizes()));
  std::vector<std::int64_t> shape(input.dim(), 1);
  shape[0] = input.size(0);
  shape[1] = input.size(1);
  return shape;
}

/// input * mask / (1 - p), the mask keeping each entry with probability
/// 1 - p: one entry per element, or per (N, C) with `feature`. As in
/// LibTorch, only p is checked when nothing is dropped (eval mode, p = 0).
Tensor apply_dropout(const char* op, Tensor& input, double p, bool train, bool inplace, bool feature) {
  check_p(op, p);
  if (p == 0 || !train || input.numel() == 0) return input;
  if (!input.is_floating_point())
    throw DtypeError(kiln::detail::cat("[", op, "] needs a floating-point input, got ", input.dtype(), " of shape ",
                                       input.sizes()));
  const std::vector<std::int64_t> noise_shape = feature ? feature_noise_shape(op, input) : input.sizes().vec();
  // p = 1 multiplies by zero (as LibTorch does), so NaN and inf stay visible.
  Tensor noise = p == 1 ? zeros({}, input.dtype())
                        : (rand(noise_shape, input.dtype()) < (1 - p)).to(input.dtype()).mul(1 / (1 - p));
  return inplace ? input.mul_(noise) : input * noise;
}

}  // namespace

Tensor dropout(const Tensor& input, double p, bool train) {
  Tensor x = input;
  return apply_dropout("dropout", x, p, train, false, false);
}
Tensor dropout_(Tensor& input, double p, bool train) { return apply_dropout("dropout_", input, p, train, true, false); }
Tensor feature_dropout(const Tensor& input, double p, bool train) {
  Tensor x = input;
  return apply_dropout("feature_dropout", x, p, train, false, true);
}
Tensor feature_dropout_(Tensor& input, double p, bool train) {
  return apply_dropout("feature_dropout_", input, p, train, true, true);
}

namespace nn {

namespace functional {

Tensor dropout(Tensor input, const DropoutFuncOptions& options) {
  return options.inplace() ? dropout_(input, options.p(), options.training())
                           : kiln::dropout(input, options.p(), options.training());
}

Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options) {
  check_p("dropout2d", options.p());
  if (input.dim() != 3 && input.dim() != 4)
    throw ShapeError(kiln::detail::cat("[dropout2d] needs a [N, C, H, W] or [C, H, W] input, got shape ",
                                       input.sizes()));
  // An unbatched [C, H, W] input is one sample: channels are dim 0.
  const bool batched = input.dim() == 4;
  Tensor x = batched ? input : input.unsqueeze(0);
  Tensor out = options.inplace() ? feature_dropout_(x, options.p(), options.training())
                                 : feature_dropout(x, options.p(), options.training());
  return batched ? out : out.squeeze(0);
}

}  // namespace functional

namespace {

void print_dropout(std::ostream& stream, const std::string& name, const DropoutOptions& options) {
  stream << name << "(p=" << options.p() << ", inplace=" << (options.inplace() ? "true" : "false")
         << ")";
}

}  // namespace

DropoutImpl::DropoutImpl(const DropoutOptions& options_) : Module("kiln::nn::Dropout"), options(options_) {
  check_p("nn::Dropout", options.p());
}
Tensor DropoutImpl::forward(Tensor input) {
  return functional::dropout(std::move(input),
                             functional::DropoutFuncOptions().p(options.p()).training(is_training()).inplace(
                                 options.inplace()));
}
void DropoutImpl::pretty_print(std::ostream& stream) const { print_dropout(stream, name(), options); }

Dropout2dImpl::Dropout2dImpl(const Dropout2dOptions& options_) : Module("kiln::nn::Dropout2d"), options(options_) {
  check_p("nn::Dropout2d", options.p());
}
Tensor Dropout2dImpl::forward(Tensor input) {
  return functional::dropout2d(std::move(input),
                               functional::Dropout2dFuncOptions().p(options.p()).training(is_training()).inplace(
                                   options.inplace()));
}
void Dropout2dImpl::pretty_print(std::ostream& stream) const { print_dropout(stream, name(), options); }

}  // namespace nn

}  // namespace kiln

// Dropout, as LibTorch's torch::nn::Dropout / Dropout2d, their functional
// forms nn::functional::dropout / dropout2d and the free functions
// kiln::dropout / feature_dropout (torch::dropout, torch::feature_dropout).
// In training, each element (Dropout) or each whole channel (Dropout2d) is
// zeroed with probability p and the kept ones are scaled by 1 / (1 - p), so
// the expected output equals the input; in eval mode the input is returned.
// The mask is drawn with rand (manual_seed makes it reproducible) and
// applied with an ordinary multiply, so the gradient is the same mask.
#pragma once

#include <iosfwd>

#include <kiln/nn/module.h>
#include <kiln/nn/options.h>

namespace kiln::nn {

/// Dropout's options: the drop probability p in [0, 1] and `inplace`
/// (multiply the input itself).
struct DropoutOptions {
  /* implicit */ DropoutOptions(double p = 0.5) : p_(p) {}
  KILN_ARG(double, p);
  KILN_ARG(bool, inplace) = false;
};
using Dropout2dOptions = DropoutOptions;

namespace functional {

/// The functional forms' options: p, whether to drop at all (`training`) and `inplace`.
struct DropoutFuncOptions {
  KILN_ARG(double, p) = 0.5;
  KILN_ARG(bool, training) = true;
  KILN_ARG(bool, inplace) = false;
};
using Dropout2dFuncOptions = DropoutFuncOptions;

/// Zeroes each element with probability p, scales the rest by 1 / (1 - p).
/// ValueError when p is outside [0, 1].
Tensor dropout(Tensor input, const DropoutFuncOptions& options = {});
/// Zeroes whole channels of [N, C, H, W] (or unbatched [C, H, W]) input.
/// ShapeError for other ranks (LibTorch only warns and goes on).
Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options = {});

}  // namespace functional

/// Element-wise dropout while is_training(). Prints "kiln::nn::Dropout(p=0.5, inplace=false)".
class DropoutImpl : public Module {
 public:
  explicit DropoutImpl(double p) : DropoutImpl(DropoutOptions(p)) {}
  /// ValueError when options.p() is outside [0, 1].
  explicit DropoutImpl(const DropoutOptions& options = {});
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;

  DropoutOptions options;
};
KILN_MODULE(Dropout);

/// Channel-wise dropout of [N, C, H, W] or [C, H, W] while is_training().
/// Prints "kiln::nn::Dropout2d(p=0.5, inplace=false)".
class Dropout2dImpl : public Module {
 public:
  explicit Dropout2dImpl(double p) : Dropout2dImpl(Dropout2dOptions(p)) {}
  explicit Dropout2dImpl(const Dropout2dOptions& options = {});
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;

  Dropout2dOptions options;
};
KILN_MODULE(Dropout2d);

}  // namespace kiln::nn

namespace kiln {

/// LibTorch's torch::dropout: with `train`, each element is zeroed with
/// probability p and the rest scaled by 1 / (1 - p); without (or with p = 0),
/// `input` itself is returned. ValueError when p is outside [0, 1] (always
/// checked), DtypeError for a non-floating input that would be dropped.
Tensor dropout(const Tensor& input, double p, bool train);
/// The same, multiplying `input` in place.
Tensor dropout_(Tensor& input, double p, bool train);
/// LibTorch's torch::feature_dropout: one draw per (batch, channel) of an
/// input of at least 2 dims [N, C, ...], broadcast over the remaining dims.
/// ShapeError for fewer than 2 dims when it drops.
Tensor feature_dropout(const Tensor& input, double p, bool train);
Tensor feature_dropout_(Tensor& input, double p, bool train);

}  // namespace kiln

// Losses, as LibTorch has them: functional forms in kiln::nn::functional
// (with an options struct) and modules (MSELoss, CrossEntropyLoss, ...).
// Each is built from kiln's ops, so its gradient comes from theirs and the
// whole loss fuses with the step around it.
#pragma once

#include <cstdint>
#include <ostream>
#include <optional>

#include <kiln/nn/module.h>
#include <kiln/nn/options.h>

namespace kiln::nn {

/// Options of the losses whose only option is the reduction.
struct ReductionOptions {
  KILN_ARG(Reduction, reduction) = kMean;
};
using MSELossOptions = ReductionOptions;
using L1LossOptions = ReductionOptions;

struct SmoothL1LossOptions {
  KILN_ARG(Reduction, reduction) = kMean;
  /// Where the loss turns from quadratic to linear; 0 gives l1_loss.
  KILN_ARG(double, beta) = 1.0;
};

struct HuberLossOptions {
  KILN_ARG(Reduction, reduction) = kMean;
  /// Where the loss turns from quadratic to linear (positive).
  KILN_ARG(double, delta) = 1.0;
};

struct KLDivLossOptions {
  /// kBatchMean divides the sum by the batch size (the true KL divergence);
  /// kMean, LibTorch's default, by the element count.
  KILN_ARG(Reduction, reduction) = kMean;
  /// The target holds log-probabilities rather than probabilities.
  KILN_ARG(bool, log_target) = false;
};

struct NLLLossOptions {
  /// A weight per class ([C]); undefined: all 1.
  KILN_ARG(Tensor, weight) = {};
  KILN_ARG(std::int64_t, ignore_index) = -100;
  KILN_ARG(Reduction, reduction) = kMean;
};

struct CrossEntropyLossOptions {
  KILN_ARG(Tensor, weight) = {};
  KILN_ARG(std::int64_t, ignore_index) = -100;
  KILN_ARG(Reduction, reduction) = kMean;
  /// In [0, 1]: the target becomes (1 - s) one-hot + s / C.
  KILN_ARG(double, label_smoothing) = 0.0;
};

struct BCELossOptions {
  /// Rescales each element's loss; broadcast to the input.
  KILN_ARG(Tensor, weight) = {};
  KILN_ARG(Reduction, reduction) = kMean;
};

struct BCEWithLogitsLossOptions {
  KILN_ARG(Tensor, weight) = {};
  KILN_ARG(Reduction, reduction) = kMean;
  /// The weight of positive examples, per class; broadcast to the input.
  KILN_ARG(Tensor, pos_weight) = {};
};

namespace functional {

using MSELossFuncOptions = MSELossOptions;
using L1LossFuncOptions = L1LossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using KLDivFuncOptions = KLDivLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;

/// mean((input - target)^2); input and target broadcast.
Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {});
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {});
/// |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta, d = input - target.
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options = {});
/// |d| < delta ? 0.5 d^2 : delta (|d| - 0.5 delta).
Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options = {});
/// KL(target || exp(input)): input holds log-probabilities; the target
/// probabilities (or log-probabilities with log_target). Terms with a zero
/// target are 0, as LibTorch's xlogy.
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {});
/// Negative log-likelihood of class indices: input [N, C] (or [N, C, d...])
/// log-probabilities, target int64 [N] (or [N, d...]) in [0, C) or the
/// ignore index; the mean divides by the summed weights of the targets.
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});
/// log_softmax over dim 1, then nll_loss; `target` is class indices (int64)
/// or class probabilities (floating, the input's shape).
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options = {});
/// Of probabilities in [0, 1]; log terms are clamped at -100 as LibTorch's.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options = {});
/// Of logits, in the numerically stable form.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options = {});

}  // namespace functional

// The module forms: forward(input, target) calls the functional form with
// the module's options.
#define KILN_LOSS_MODULE(Name, Options, fn)                                            \
  class Name##Impl : public Module {                                                   \
   public:                                                                             \
    explicit Name##Impl(Options options_ = {}) : Module("kiln::nn::" #Name), options(std::move(options_)) {} \
    Tensor forward(const Tensor& input, const Tensor& target) {                       \
      return functional::fn(input, target, options);                                  \
    }                                                                                  \
    void pretty_print(std::ostream& stream) const override { stream << name() << "()"; } \
    Options options;                                                                   \
  };                                                                                   \
  KILN_MODULE(Name)

KILN_LOSS_MODULE(MSELoss, MSELossOptions, mse_loss);
KILN_LOSS_MODULE(L1Loss, L1LossOptions, l1_loss);
KILN_LOSS_MODULE(SmoothL1Loss, SmoothL1LossOptions, smooth_l1_loss);
KILN_LOSS_MODULE(HuberLoss, HuberLossOptions, huber_loss);
KILN_LOSS_MODULE(KLDivLoss, KLDivLossOptions, kl_div);
KILN_LOSS_MODULE(NLLLoss, NLLLossOptions, nll_loss);
KILN_LOSS_MODULE(CrossEntropyLoss, CrossEntropyLossOptions, cross_entropy);
KILN_LOSS_MODULE(BCELoss, BCELossOptions, binary_cross_entropy);
KILN_LOSS_MODULE(BCEWithLogitsLoss, BCEWithLogitsLossOptions, binary_cross_entropy_with_logits);

#undef KILN_LOSS_MODULE

}  // namespace kiln::nn

namespace kiln {

// The losses as LibTorch's free functions (torch::mse_loss, ...), with ATen's
// argument order: (input, target[, weight], reduction, ...).
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean);
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean);
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean, double beta = 1.0);
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean, double delta = 1.0);
Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction = kMean, bool log_target = false);
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {}, Reduction reduction = kMean,
                std::int64_t ignore_index = -100);
Tensor cross_entropy_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                          Reduction reduction = kMean, std::int64_t ignore_index = -100,
                          double label_smoothing = 0.0);
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                            Reduction reduction = kMean);
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                        const Tensor& pos_weight = {}, Reduction reduction = kMean);

}  // namespace kiln

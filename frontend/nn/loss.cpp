// Losses from kiln's ops (formulas as LibTorch's aten/src/ATen/native/Loss*.cpp).
#include <kiln/nn/loss.h>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

namespace kiln::nn::functional {

namespace {

Tensor reduce(const Tensor& loss, Reduction reduction, const char* name) {
  switch (reduction) {
    case kNone: return loss;
    case kSum: return loss.sum();
    case kMean: break;
    case kBatchMean:
      throw ValueError(kiln::detail::cat("[", name, "] reduction kBatchMean is kl_div's only; use kMean, kSum or ",
                                         "kNone"));
  }
  return loss.mean();
}


void check_floating(const char* name, const Tensor& input) {
  if (!is_floating_point(input.dtype()))
    throw DtypeError(kiln::detail::cat("[", name, "] input must be floating point, got ", input.dtype(), " ",
                                       input.sizes()));
}

// Piecewise quadratic then linear in |input - target|, as smooth_l1 and huber.
Tensor quadratic_then_linear(const char* name, const Tensor& input, const Tensor& target, double knee,
                             double quadratic_scale, double linear_scale, Reduction reduction) {
  check_floating(name, input);
  Tensor d = (input - target).abs();
  Tensor loss = where(d < knee, d * d * quadratic_scale, (d - 0.5 * knee) * linear_scale);
  return reduce(loss, reduction, name);
}

// Class dim 1 of [N, C, d...] (or 0 of an unbatched [C]) for index targets.
void check_class_target(const char* name, const Tensor& input, const Tensor& target) {
  check_floating(name, input);
  if (target.dtype() != kInt64 && target.dtype() != kInt32)
    throw DtypeError(kiln::detail::cat("[", name, "] target must hold class indices (int64), got ", target.dtype(),
                                       " ", target.sizes()));
  std::vector<std::int64_t> want = input.sizes().vec();
  if (!want.empty()) want.erase(want.begin() + (input.dim() > 1 ? 1 : 0));
  if (input.dim() < 1 || target.sizes().vec() != want)
    throw ShapeError(kiln::detail::cat("[", name, "] input ", input.sizes(), " and target ", target.sizes(),
                                       ": the target must be the input's shape without the class dim"));
}

// The input moved so that classes are the last dim and batch-like dims come first.
Tensor classes_last(const Tensor& input) {
  if (input.dim() <= 2) return input;
  std::vector<std::int64_t> perm{0};
  for (std::int64_t d = 2; d < input.dim(); ++d) perm.push_back(d);
  perm.push_back(1);
  return input.permute(perm);
}

}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  check_floating("mse_loss", input);
  return reduce((input - target).pow(2), options.reduction(), "mse_loss");
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  check_floating("l1_loss", input);
  return reduce((input - target).abs(), options.reduction(), "l1_loss");
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options) {
  if (options.beta() < 0)
    throw ValueError(kiln::detail::cat("[smooth_l1_loss] beta must be non-negative, got ", options.beta()));
  if (options.beta() == 0) return l1_loss(input, target, L1LossFuncOptions().reduction(options.reduction()));
  return quadratic_then_linear("smooth_l1_loss", input, target, options.beta(), 0.5 / options.beta(), 1.0,
                               options.reduction());
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options) {
  if (options.delta() <= 0)
    throw ValueError(kiln::detail::cat("[huber_loss] delta must be positive, got ", options.delta()));
  return quadratic_then_linear("huber_loss", input, target, options.delta(), 0.5, options.delta(),
                               options.reduction());
}

Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options) {
  check_floating("kl_div", input);
  Tensor loss;
  if (options.log_target()) {
    loss = target.exp() * (target - input);
  } else {
    // xlogy(t, t): 0 where t == 0, and the log never sees a 0 (its
    // gradient there would be 0 * inf).
    Tensor positive = target > 0;
    Tensor safe = where(positive, target, 1.0);
    loss = where(positive, target * safe.log(), 0.0) - target * input;
  }
  if (options.reduction() == kBatchMean)
    return input.dim() == 0 ? loss.sum() : loss.sum() / static_cast<double>(input.size(0));
  return reduce(loss, options.reduction(), "kl_div");
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  check_class_target("nll_loss", input, target);
  const std::int64_t classes = input.dim() > 1 ? input.size(1) : input.size(0);
  const Tensor& weight = options.weight();
  if (weight.defined() && (weight.dim() != 1 || weight.size(0) != classes))
    throw ShapeError(kiln::detail::cat("[nll_loss] weight ", weight.sizes(), " must have one element per class (",
                                       classes, ") of input ", input.sizes()));
  Tensor t = target.to(kInt64);
  Tensor kept = t != options.ignore_index();
  Tensor index = where(kept, t, 0);  // ignored targets read class 0, then weigh 0
  Tensor picked = classes_last(input).gather(-1, index.unsqueeze(-1)).squeeze(-1);
  Tensor w = kept.to(input.dtype());
  if (weight.defined()) w = w * weight.to(input.dtype()).index_select(0, index.flatten()).reshape(index.sizes());
  Tensor loss = -picked * w;
  if (options.reduction() == kMean) return loss.sum() / w.sum();
  return reduce(loss, options.reduction(), "nll_loss");
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options) {
  check_floating("cross_entropy", input);
  const double smoothing = options.label_smoothing();
  if (smoothing < 0 || smoothing > 1)
    throw ValueError(kiln::detail::cat("[cross_entropy] label_smoothing must be in [0, 1], got ", smoothing));
  const std::int64_t class_dim = input.dim() > 1 ? 1 : 0;
  const auto classes = static_cast<double>(input.dim() > 0 ? input.size(class_dim) : 0);
  Tensor logp = input.log_softmax(class_dim);
  // Class weights broadcast along the class dim: [C, 1, ...] for [N, C, d...].
  Tensor weight = options.weight();
  if (weight.defined()) {
    std::vector<std::int64_t> shape(static_cast<std::size_t>(input.dim() - class_dim), 1);
    shape[0] = weight.numel();
    weight = weight.to(input.dtype()).reshape(shape);
  }
  if (is_floating_point(target.dtype())) {  // class probabilities
    if (target.sizes() != input.sizes())
      throw ShapeError(kiln::detail::cat("[cross_entropy] probability target ", target.sizes(),
                                         " must have the input's shape ", input.sizes()));
    Tensor p = smoothing > 0 ? target * (1 - smoothing) + smoothing / classes : target;
    Tensor terms = logp * p;
    if (weight.defined()) terms = terms * weight;
    Tensor loss = -terms.sum({class_dim});
    if (options.reduction() == kMean) return input.dim() > 1 ? loss.sum() / (static_cast<double>(input.numel()) / classes) : loss;
    return reduce(loss, options.reduction(), "cross_entropy");
  }
  NLLLossFuncOptions nll;
  nll.weight(options.weight()).ignore_index(options.ignore_index()).reduction(options.reduction());
  Tensor loss = nll_loss(logp, target, nll);
  if (smoothing == 0) return loss;
  // LibTorch's smoothing term: -sum_c w_c log p_c, zero where the target is ignored.
  Tensor kept = target != options.ignore_index();
  Tensor terms = weight.defined() ? logp * weight : logp;
  Tensor smooth = where(kept, -terms.sum({class_dim}), 0.0);
  if (options.reduction() == kMean) {
    Tensor t = where(kept, target.to(kInt64), 0);
    Tensor denom = weight.defined()
                       ? (options.weight().to(input.dtype()).index_select(0, t.flatten()) * kept.flatten().to(input.dtype())).sum()
                       : kept.to(input.dtype()).sum();
    smooth = smooth.sum() / denom;
  } else {
    smooth = reduce(smooth, options.reduction(), "cross_entropy");
  }
  return loss * (1 - smoothing) + smooth * (smoothing / classes);
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const BinaryCrossEntropyFuncOptions& options) {
  check_floating("binary_cross_entropy", input);
  if (target.sizes() != input.sizes())
    throw ShapeError(kiln::detail::cat("[binary_cross_entropy] target ", target.sizes(), " must have the input's shape ",
                                       input.sizes()));
  Tensor loss = -(target * input.log().clamp(-100) + (1 - target) * (1 - input).log().clamp(-100));
  if (options.weight().defined()) loss = loss * options.weight();
  return reduce(loss, options.reduction(), "binary_cross_entropy");
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options) {
  check_floating("binary_cross_entropy_with_logits", input);
  if (target.sizes() != input.sizes())
    throw ShapeError(kiln::detail::cat("[binary_cross_entropy_with_logits] target ", target.sizes(),
                                       " must have the input's shape ", input.sizes()));
  Tensor log_sigmoid_neg = -log_sigmoid(input);
  Tensor loss = options.pos_weight().defined()
                    ? (1 - target) * input + (1 + (options.pos_weight() - 1) * target) * log_sigmoid_neg
                    : (1 - target) * input + log_sigmoid_neg;
  if (options.weight().defined()) loss = loss * options.weight();
  return reduce(loss, options.reduction(), "binary_cross_entropy_with_logits");
}

}  // namespace kiln::nn::functional

namespace kiln {

namespace F = nn::functional;

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  return F::mse_loss(input, target, F::MSELossFuncOptions().reduction(reduction));
}
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  return F::l1_loss(input, target, F::L1LossFuncOptions().reduction(reduction));
}
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction, double beta) {
  return F::smooth_l1_loss(input, target, F::SmoothL1LossFuncOptions().reduction(reduction).beta(beta));
}
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction, double delta) {
  return F::huber_loss(input, target, F::HuberLossFuncOptions().reduction(reduction).delta(delta));
}
Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction, bool log_target) {
  return F::kl_div(input, target, F::KLDivFuncOptions().reduction(reduction).log_target(log_target));
}
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction,
                std::int64_t ignore_index) {
  return F::nll_loss(input, target,
                     F::NLLLossFuncOptions().weight(weight).reduction(reduction).ignore_index(ignore_index));
}
Tensor cross_entropy_loss(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction,
                          std::int64_t ignore_index, double label_smoothing) {
  return F::cross_entropy(input, target,
                          F::CrossEntropyFuncOptions().weight(weight).reduction(reduction).ignore_index(ignore_index)
                              .label_smoothing(label_smoothing));
}
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction) {
  return F::binary_cross_entropy(input, target, F::BinaryCrossEntropyFuncOptions().weight(weight).reduction(reduction));
}
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        const Tensor& pos_weight, Reduction reduction) {
  return F::binary_cross_entropy_with_logits(
      input, target,
      F::BinaryCrossEntropyWithLogitsFuncOptions().weight(weight).pos_weight(pos_weight).reduction(reduction));
}

}  // namespace kiln

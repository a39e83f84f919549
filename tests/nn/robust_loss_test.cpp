// smooth_l1_loss, huber_loss and kl_div against loops, their gradients in
// float64, and the losses as LibTorch's free functions (torch::mse_loss, ...).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <kiln/torch.h>

#include "tests/autograd/gradcheck.h"

namespace {

using gradcheck::Input;
using kiln::Tensor;
using V = std::vector<Tensor>;
namespace F = torch::nn::functional;

const std::vector<double> kInput = {0.2, -1.0, 0.5, 1.5, 0.3, -0.2, -0.7, 0.9, 0.1, 0.0, 2.0, -1.5};
const std::vector<double> kTarget = {0.1, 0.4, -0.3, 0.8, -1.2, 0.5, 0.95, -0.1, 0.3, 0.25, -0.6, 1.1};

Tensor dbl(const std::vector<double>& v) { return torch::tensor(v, torch::kFloat64).reshape({4, 3}); }
double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

TEST(RobustLoss, SmoothL1AndHuberMatchLoops) {
  for (double knee : {0.5, 1.0, 2.0}) {
    std::vector<double> smooth, huber;
    for (std::size_t i = 0; i < kInput.size(); ++i) {
      const double d = std::abs(kInput[i] - kTarget[i]);
      smooth.push_back(d < knee ? 0.5 * d * d / knee : d - 0.5 * knee);
      huber.push_back(d < knee ? 0.5 * d * d : knee * (d - 0.5 * knee));
    }
    Tensor a = dbl(kInput), b = dbl(kTarget);
    EXPECT_NEAR(F::smooth_l1_loss(a, b, F::SmoothL1LossFuncOptions().beta(knee)).item<double>(), mean(smooth), 1e-12);
    EXPECT_NEAR(F::huber_loss(a, b, F::HuberLossFuncOptions().delta(knee)).item<double>(), mean(huber), 1e-12);
    std::vector<double> got =
        F::huber_loss(a, b, F::HuberLossFuncOptions().delta(knee).reduction(torch::kNone)).flatten().to_vector<double>();
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], huber[i], 1e-12) << i;
  }
  // beta = 0 is l1_loss.
  EXPECT_DOUBLE_EQ(F::smooth_l1_loss(dbl(kInput), dbl(kTarget), F::SmoothL1LossFuncOptions().beta(0)).item<double>(),
                   F::l1_loss(dbl(kInput), dbl(kTarget)).item<double>());
  EXPECT_DOUBLE_EQ(torch::nn::SmoothL1Loss()(dbl(kInput), dbl(kTarget)).item<double>(),
                   torch::smooth_l1_loss(dbl(kInput), dbl(kTarget)).item<double>());
}

TEST(RobustLoss, KlDivMatchesLoopsWithEachReduction) {
  // Rows of probabilities (one zero), and log-probabilities as the input.
  const std::vector<double> p = {0.2, 0.3, 0.5, 1.0, 0.0, 0.0, 0.1, 0.6, 0.3, 0.25, 0.25, 0.5};
  Tensor logq = dbl(kInput).log_softmax(1);
  std::vector<double> lq = logq.flatten().to_vector<double>();
  std::vector<double> terms;
  double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    terms.push_back(p[i] > 0 ? p[i] * (std::log(p[i]) - lq[i]) : 0.0);
    sum += terms.back();
  }
  Tensor target = dbl(p);
  EXPECT_NEAR(F::kl_div(logq, target).item<double>(), sum / 12, 1e-12);
  EXPECT_NEAR(F::kl_div(logq, target, F::KLDivFuncOptions().reduction(torch::kBatchMean)).item<double>(), sum / 4,
              1e-12);
  EXPECT_NEAR(F::kl_div(logq, target, F::KLDivFuncOptions().reduction(torch::kSum)).item<double>(), sum, 1e-12);
  std::vector<double> none =
      F::kl_div(logq, target, F::KLDivFuncOptions().reduction(torch::kNone)).flatten().to_vector<double>();
  for (std::size_t i = 0; i < none.size(); ++i) EXPECT_NEAR(none[i], terms[i], 1e-12) << i;
  // A log-target gives the same divergence where the target is positive.
  Tensor positive = dbl({0.2, 0.3, 0.5, 0.7, 0.2, 0.1, 0.1, 0.6, 0.3, 0.25, 0.25, 0.5});
  EXPECT_NEAR(torch::kl_div(logq, positive.log(), torch::kSum, /*log_target=*/true).item<double>(),
              torch::kl_div(logq, positive, torch::kSum).item<double>(), 1e-12);
  EXPECT_THROW(F::mse_loss(logq, target, F::MSELossFuncOptions().reduction(torch::kBatchMean)), kiln::ValueError);
}

TEST(RobustLoss, GradientsMatchCentralDifferences) {
  const Input a{kInput, {4, 3}}, b{kTarget, {4, 3}};
  EXPECT_TRUE(gradcheck::check(
      [](const V& x) { return F::smooth_l1_loss(x[0], x[1], F::SmoothL1LossFuncOptions().beta(0.5)); }, {a, b}));
  EXPECT_TRUE(gradcheck::check(
      [](const V& x) { return F::huber_loss(x[0], x[1], F::HuberLossFuncOptions().delta(0.9)); }, {a, b}));
  const Input probs{{0.2, 0.3, 0.5, 0.7, 0.2, 0.1, 0.1, 0.6, 0.3, 0.25, 0.25, 0.5}, {4, 3}};
  EXPECT_TRUE(gradcheck::check(
      [](const V& x) {
        return F::kl_div(x[0].log_softmax(1), x[1], F::KLDivFuncOptions().reduction(torch::kBatchMean));
      },
      {a, probs}));
  EXPECT_TRUE(gradcheck::check(
      [](const V& x) { return torch::kl_div(x[0].log_softmax(1), x[1], torch::kSum, true); }, {a, b}));
  // A zero target contributes no gradient (no 0 * log 0 = NaN).
  Tensor logq = dbl(kInput).log_softmax(1).detach().requires_grad_();
  Tensor t = dbl({0.0, 0.5, 0.5, 1, 0, 0, 0, 0, 1, 0.5, 0, 0.5}).requires_grad_();
  F::kl_div(logq, t).backward();
  for (double g : t.grad().flatten().to_vector<double>()) EXPECT_TRUE(std::isfinite(g));
}

TEST(RobustLoss, FreeFunctionsTakeATenArgumentOrder) {
  Tensor a = dbl(kInput), b = dbl(kTarget);
  EXPECT_DOUBLE_EQ(torch::mse_loss(a, b, torch::kSum).item<double>(),
                   F::mse_loss(a, b, F::MSELossFuncOptions().reduction(torch::kSum)).item<double>());
  EXPECT_DOUBLE_EQ(torch::l1_loss(a, b).item<double>(), F::l1_loss(a, b).item<double>());
  EXPECT_DOUBLE_EQ(torch::huber_loss(a, b, torch::kMean, 0.5).item<double>(),
                   F::huber_loss(a, b, F::HuberLossFuncOptions().delta(0.5)).item<double>());
  Tensor labels = torch::tensor({2, 0, -100, 1});
  Tensor w = torch::tensor({0.5, 1.0, 2.0}, torch::kFloat64);
  EXPECT_DOUBLE_EQ(
      torch::cross_entropy_loss(a, labels, w, torch::kMean, -100, 0.1).item<double>(),
      F::cross_entropy(a, labels, F::CrossEntropyFuncOptions().weight(w).label_smoothing(0.1)).item<double>());
  EXPECT_DOUBLE_EQ(torch::nll_loss(a.log_softmax(1), labels, w).item<double>(),
                   F::nll_loss(a.log_softmax(1), labels, F::NLLLossFuncOptions().weight(w)).item<double>());
  Tensor p = b.sigmoid();
  EXPECT_DOUBLE_EQ(torch::binary_cross_entropy(a.sigmoid(), p, {}, torch::kSum).item<double>(),
                   F::binary_cross_entropy(a.sigmoid(), p, F::BinaryCrossEntropyFuncOptions().reduction(torch::kSum))
                       .item<double>());
  EXPECT_DOUBLE_EQ(torch::binary_cross_entropy_with_logits(a, p, {}, w).item<double>(),
                   F::binary_cross_entropy_with_logits(a, p, F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(w))
                       .item<double>());
  EXPECT_THROW(torch::smooth_l1_loss(a, b, torch::kMean, -1), kiln::ValueError);
  EXPECT_THROW(torch::huber_loss(a, b, torch::kMean, 0), kiln::ValueError);
  EXPECT_THROW(torch::huber_loss(torch::tensor({1, 2}), torch::tensor({1, 2})), kiln::DtypeError);
}

}  // namespace

// nn::utils::clip_grad_norm_ and clip_grad_value_ against the clipping
// written out over plain vectors: 1-, 2-, infinity- and 0-norms, the returned
// total norm, the coefficient capped at 1, non-finite norms, the overloads,
// and parameters without a gradient.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <kiln/torch.h>

#include "tests/nn/optim_reference.h"

namespace {

using kiln::Tensor;
using optim_reference::expect_close;
using optim_reference::expect_value_error;
using optim_reference::Vec;

const Vec kGradA = {3.0, -4.0, 0.5};
const Vec kGradB = {-1.5, 2.0};

// A float64 leaf whose gradient becomes `grad` (the loss is p . grad).
Tensor with_grad(const Vec& grad) {
  Tensor p = torch::zeros({static_cast<std::int64_t>(grad.size())}, torch::kFloat64).requires_grad_(true);
  (p * torch::tensor(grad, torch::kFloat64)).sum().backward();
  return p;
}

// The total norm of kGradA and kGradB, written out.
double reference_norm(double norm_type) {
  double acc = 0;
  for (const Vec* g : {&kGradA, &kGradB})
    for (double x : *g)
      acc = std::isinf(norm_type) ? std::max(acc, std::abs(x)) : acc + std::pow(std::abs(x), norm_type);
  return std::isinf(norm_type) ? acc : std::pow(acc, 1 / norm_type);
}

Vec scaled(const Vec& g, double coef) {
  Vec out = g;
  for (double& x : out) x *= coef;
  return out;
}

TEST(ClipGrad, ClipGradNormScalesByMaxNormOverTheTotalNorm) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double norm_type : {2.0, 1.0, inf, 3.0}) {
    SCOPED_TRACE(norm_type);
    Tensor a = with_grad(kGradA), b = with_grad(kGradB);
    Tensor idle = torch::zeros({2}, torch::kFloat64).requires_grad_(true);
    const double max_norm = 1.5, total = reference_norm(norm_type);
    EXPECT_NEAR(torch::nn::utils::clip_grad_norm_({a, idle, b}, max_norm, norm_type), total, 1e-12);
    const double coef = max_norm / (total + 1e-6);
    expect_close(a.grad().to_vector<double>(), scaled(kGradA, coef));
    expect_close(b.grad().to_vector<double>(), scaled(kGradB, coef));
    EXPECT_FALSE(idle.grad().defined());
  }
  EXPECT_NEAR(reference_norm(2.0), std::sqrt(9 + 16 + 0.25 + 2.25 + 4), 1e-12);
  EXPECT_NEAR(reference_norm(inf), 4.0, 1e-12);
}

TEST(ClipGrad, ClipGradNormLeavesGradientsWithinMaxNorm) {
  // The coefficient max_norm / (total + 1e-6) is capped at 1.
  Tensor a = with_grad(kGradA), b = with_grad(kGradB);
  const std::vector<Tensor> params{a, b};
  EXPECT_NEAR(torch::nn::utils::clip_grad_norm_(params, 100.0), reference_norm(2.0), 1e-12);
  expect_close(a.grad().to_vector<double>(), kGradA);
  expect_close(b.grad().to_vector<double>(), kGradB);
}

TEST(ClipGrad, ClipGradNormOverloadsAndEdgeCases) {
  Tensor a = with_grad(kGradA);
  // One tensor: its own norm, sqrt(9 + 16 + 0.25).
  const double norm_a = std::sqrt(25.25);
  EXPECT_NEAR(torch::nn::utils::clip_grad_norm_(a, 2.0), norm_a, 1e-12);
  expect_close(a.grad().to_vector<double>(), scaled(kGradA, 2.0 / (norm_a + 1e-6)));
  // No gradient at all: 0, nothing changed.
  Tensor idle = torch::zeros({2}, torch::kFloat64).requires_grad_(true);
  EXPECT_EQ(torch::nn::utils::clip_grad_norm_(idle, 1.0), 0.0);
  EXPECT_FALSE(idle.grad().defined());
  // LibTorch's norm_type 0: the number of gradients.
  Tensor b = with_grad(kGradB), c = with_grad(kGradA);
  EXPECT_EQ(torch::nn::utils::clip_grad_norm_({b, c}, 10.0, 0.0), 2.0);
  expect_close(b.grad().to_vector<double>(), kGradB);
}

TEST(ClipGrad, ClipGradNormWithANaNGradient) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor a = with_grad({1.0, nan}), b = with_grad(kGradB);
  expect_value_error(
      [&] { torch::nn::utils::clip_grad_norm_({a, b}, 1.0, 2.0, true); },
      "[nn::utils::clip_grad_norm_] the total norm of order 2 for gradients from `parameters` is non-finite, so it "
      "cannot be clipped. To disable this error and scale the gradients with the non-finite norm anyway, set "
      "`error_if_nonfinite=false`");
  expect_close(b.grad().to_vector<double>(), kGradB);  // the error comes before any scaling
  // Without the check (the default), LibTorch scales by the NaN coefficient.
  EXPECT_TRUE(std::isnan(torch::nn::utils::clip_grad_norm_({a, b}, 1.0)));
  for (double x : b.grad().to_vector<double>()) EXPECT_TRUE(std::isnan(x));
}

TEST(ClipGrad, ClipGradNormOfAFloat32ModulesParameters) {
  torch::manual_seed(3);
  torch::nn::Linear fc(4, 3);
  (fc(torch::randn({8, 4})) * 10).pow(2).sum().backward();
  std::vector<Tensor> params = fc->parameters();
  double total = 0;
  for (const Tensor& p : params)
    for (float x : p.grad().to_vector<float>()) total += static_cast<double>(x) * x;
  total = std::sqrt(total);
  ASSERT_GT(total, 1.0);
  EXPECT_NEAR(torch::nn::utils::clip_grad_norm_(params, 0.5), total, total * 1e-6);
  double after = 0;
  for (const Tensor& p : params) {
    EXPECT_EQ(p.grad().dtype(), torch::kFloat32);
    for (float x : p.grad().to_vector<float>()) after += static_cast<double>(x) * x;
  }
  EXPECT_NEAR(std::sqrt(after), 0.5, 1e-5);
}

TEST(ClipGrad, ClipGradValueClampsEveryGradient) {
  Tensor a = with_grad(kGradA), b = with_grad(kGradB);
  Tensor idle = torch::zeros({2}, torch::kFloat64).requires_grad_(true);
  torch::nn::utils::clip_grad_value_({a, idle, b}, 1.75);
  expect_close(a.grad().to_vector<double>(), {1.75, -1.75, 0.5});
  expect_close(b.grad().to_vector<double>(), {-1.5, 1.75});
  EXPECT_FALSE(idle.grad().defined());
  torch::nn::utils::clip_grad_value_(a, 0.25);
  expect_close(a.grad().to_vector<double>(), {0.25, -0.25, 0.25});
  const std::vector<Tensor> params{b};
  torch::nn::utils::clip_grad_value_(params, 1.0);
  expect_close(b.grad().to_vector<double>(), {-1.0, 1.0});
}

}  // namespace

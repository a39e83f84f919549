// Losses against plain loops over std::vector, and their gradients against
// central differences in float64.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <kiln/torch.h>

#include "tests/autograd/gradcheck.h"

namespace {

using gradcheck::Input;
using kiln::Tensor;
namespace F = torch::nn::functional;

std::vector<double> values(const Tensor& t) { return t.to(torch::kFloat64).to_vector<double>(); }
Tensor dbl(std::vector<double> v, std::vector<std::int64_t> shape) {
  return torch::tensor(v, torch::kFloat64).reshape(shape);
}

// Log-softmax of each row of an [n, c] row-major matrix.
std::vector<double> log_softmax_rows(const std::vector<double>& x, int n, int c) {
  std::vector<double> out(x.size());
  for (int i = 0; i < n; ++i) {
    double m = -INFINITY, s = 0;
    for (int j = 0; j < c; ++j) m = std::max(m, x[i * c + j]);
    for (int j = 0; j < c; ++j) s += std::exp(x[i * c + j] - m);
    for (int j = 0; j < c; ++j) out[i * c + j] = x[i * c + j] - m - std::log(s);
  }
  return out;
}

const std::vector<double> kLogits = {0.2, -1.0, 0.5, 1.5, 0.3, -0.2, -0.7, 0.9, 0.1, 0.0, 2.0, -1.5};  // [4, 3]
const std::vector<std::int64_t> kTargets = {2, 0, 1, 1};

TEST(Loss, MseAndL1WithEachReduction) {
  Tensor a = dbl({1, 2, 3, 4}, {2, 2}), b = dbl({0.5, 2, 5, 1}, {2, 2});
  EXPECT_DOUBLE_EQ(F::mse_loss(a, b).item<double>(), (0.25 + 0 + 4 + 9) / 4);
  EXPECT_DOUBLE_EQ(F::mse_loss(a, b, F::MSELossFuncOptions().reduction(torch::kSum)).item<double>(), 13.25);
  EXPECT_EQ(values(F::l1_loss(a, b, F::L1LossFuncOptions().reduction(torch::kNone))),
            (std::vector<double>{0.5, 0, 2, 3}));
  EXPECT_DOUBLE_EQ(torch::nn::MSELoss()(a, b).item<double>(), 13.25 / 4);
}

TEST(Loss, CrossEntropyWithWeightsIgnoreIndexAndSmoothing) {
  const int n = 4, c = 3;
  std::vector<double> lp = log_softmax_rows(kLogits, n, c);
  const std::vector<double> w = {0.5, 1.0, 2.0};
  const double eps = 0.1;
  const std::int64_t ignored = 1;  // the second example's target is ignored below
  std::vector<std::int64_t> t = kTargets;
  t[1] = -100;
  double nll = 0, wsum = 0, smooth = 0;
  for (int i = 0; i < n; ++i) {
    if (i == ignored) continue;
    nll -= w[t[i]] * lp[i * c + t[i]];
    wsum += w[t[i]];
    for (int j = 0; j < c; ++j) smooth -= w[j] * lp[i * c + j];
  }
  const double want = (1 - eps) * nll / wsum + eps / c * smooth / wsum;
  Tensor logits = dbl(kLogits, {n, c});
  Tensor target = torch::tensor(t, torch::kInt64);
  auto opts = F::CrossEntropyFuncOptions().weight(dbl(w, {3})).label_smoothing(eps);
  EXPECT_NEAR(F::cross_entropy(logits, target, opts).item<double>(), want, 1e-12);
  // Without the extras: the mean negative log-likelihood.
  double plain = 0;
  for (int i = 0; i < n; ++i) plain -= lp[i * c + kTargets[i]];
  EXPECT_NEAR(torch::nn::CrossEntropyLoss()(logits, torch::tensor(kTargets, torch::kInt64)).item<double>(), plain / n,
              1e-12);
  EXPECT_NEAR(F::nll_loss(logits.log_softmax(1), torch::tensor(kTargets, torch::kInt64),
                          F::NLLLossFuncOptions().reduction(torch::kSum))
                  .item<double>(),
              plain, 1e-12);
}

TEST(Loss, CrossEntropyWithProbabilityTargetsAndSpatialDims) {
  const int n = 4, c = 3;
  std::vector<double> lp = log_softmax_rows(kLogits, n, c);
  std::vector<double> p = {0.2, 0.3, 0.5, 1, 0, 0, 0, 0.5, 0.5, 0.1, 0.1, 0.8};
  double want = 0;
  for (int i = 0; i < n * c; ++i) want -= p[i] * lp[i];
  EXPECT_NEAR(F::cross_entropy(dbl(kLogits, {n, c}), dbl(p, {n, c})).item<double>(), want / n, 1e-12);
  // [N, C, L]: the class dim is 1; the same numbers laid out as [1, 3, 4].
  Tensor spatial = dbl(kLogits, {n, c}).t().unsqueeze(0).contiguous();
  Tensor target = torch::tensor(kTargets, torch::kInt64).unsqueeze(0);
  double plain = 0;
  for (int i = 0; i < n; ++i) plain -= lp[i * c + kTargets[i]];
  EXPECT_NEAR(F::cross_entropy(spatial, target).item<double>(), plain / n, 1e-12);
}

TEST(Loss, BinaryCrossEntropyAndWithLogitsAgree) {
  std::vector<double> x = {-2, -0.5, 0, 0.7, 3, 40};
  std::vector<double> y = {0, 1, 1, 0, 1, 0};
  double want = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    double s = 1 / (1 + std::exp(-x[i]));
    want -= y[i] * std::max(std::log(s), -100.0) + (1 - y[i]) * std::max(std::log(1 - s), -100.0);
  }
  Tensor logits = dbl(x, {6}), target = dbl(y, {6});
  EXPECT_NEAR(F::binary_cross_entropy(logits.sigmoid(), target).item<double>(), want / 6, 1e-9);
  // 40 saturates the sigmoid: only the logits form keeps the exact value 40.
  double exact = want - 100 + 40;
  EXPECT_NEAR(F::binary_cross_entropy_with_logits(logits, target).item<double>(), exact / 6, 1e-9);
  Tensor pw = dbl({3.0}, {1});
  double weighted = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    double ls = std::log1p(std::exp(-std::abs(x[i]))) + std::max(-x[i], 0.0);  // -log(sigmoid(x))
    weighted += (1 - y[i]) * x[i] + (1 + 2 * y[i]) * ls;
  }
  EXPECT_NEAR(F::binary_cross_entropy_with_logits(logits, target, F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(pw))
                  .item<double>(),
              weighted / 6, 1e-9);
}

TEST(Loss, GradientsMatchCentralDifferences) {
  const Input logits{kLogits, {4, 3}};
  auto idx = [](std::vector<std::int64_t> v) { return torch::tensor(v, torch::kInt64); };
  const Input probs{{0.2, 0.3, 0.5, 1, 0, 0, 0, 0.5, 0.5, 0.1, 0.1, 0.8}, {4, 3}, false, false};
  const Input other{{0.1, 0.4, -0.3, 0.8, -1.2, 0.5, 0.9, -0.1, 0.3, 0.2, -0.6, 1.1}, {4, 3}};
  using V = std::vector<Tensor>;
  EXPECT_TRUE(gradcheck::check([&](const V& x) { return F::cross_entropy(x[0], idx(kTargets)); }, {logits}));
  EXPECT_TRUE(gradcheck::check(
      [&](const V& x) {
        return F::cross_entropy(x[0], idx({2, -100, 1, 0}),
                                F::CrossEntropyFuncOptions().weight(dbl({0.5, 1, 2}, {3})).label_smoothing(0.2));
      },
      {logits}));
  EXPECT_TRUE(gradcheck::check([&](const V& x) { return F::cross_entropy(x[0], x[1]); }, {logits, probs}));
  EXPECT_TRUE(gradcheck::check([&](const V& x) { return F::mse_loss(x[0], x[1]); }, {logits, other}));
  EXPECT_TRUE(gradcheck::check([&](const V& x) { return F::l1_loss(x[0], x[1]); }, {logits, other}));
  EXPECT_TRUE(gradcheck::check(
      [&](const V& x) { return F::binary_cross_entropy(x[0].sigmoid(), x[1].sigmoid()); }, {logits, other}));
  EXPECT_TRUE(gradcheck::check([&](const V& x) { return F::binary_cross_entropy_with_logits(x[0], x[1].sigmoid()); },
                               {logits, other}));
}

TEST(Loss, BadInputsNameTheShapes) {
  Tensor logits = torch::randn({4, 3});
  EXPECT_THROW(F::cross_entropy(logits, torch::tensor({1, 2}, torch::kInt64)), kiln::ShapeError);
  EXPECT_THROW(F::nll_loss(logits, torch::ones({4})), kiln::DtypeError);
  EXPECT_THROW(F::cross_entropy(logits, torch::randn({4, 2})), kiln::ShapeError);
  EXPECT_THROW(F::nll_loss(logits, torch::tensor({0, 1, 2, 0}, torch::kInt64), F::NLLLossFuncOptions().weight(torch::ones({2}))),
               kiln::ShapeError);
  EXPECT_THROW(F::cross_entropy(logits, torch::tensor({0, 1, 2, 0}, torch::kInt64),
                                F::CrossEntropyFuncOptions().label_smoothing(1.5)),
               kiln::ValueError);
  try {
    F::binary_cross_entropy(logits.sigmoid(), torch::ones({3, 4}));
    FAIL() << "no error";
  } catch (const kiln::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[3, 4]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[4, 3]"), std::string::npos) << e.what();
  }
}

}  // namespace

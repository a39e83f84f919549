// BatchNorm1d/2d and batch_norm against plain loops over std::vector: outputs
// in training and eval, the running statistics over several steps (momentum
// and cumulative average), num_batches_tracked; gradients in training and
// eval mode against central differences in float64; LibTorch's names,
// defaults and printing; and the errors for inputs that do not fit.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <kiln/torch.h>

#include "tests/autograd/gradcheck.h"
#include "tests/nn/nn_helpers.h"

namespace {

using knn::dbl;
using knn::expect_error;
using knn::expect_near;
using knn::printed;
using knn::values;
using gradcheck::Input;
using kiln::Tensor;
namespace F = torch::nn::functional;

// Batch normalization of x laid out [n, c, s] (s: the spatial dims flattened), as plain loops.
struct Reference {
  std::size_t n, c, s;
  std::vector<double> weight, bias;  // empty: 1 and 0
  std::vector<double> running_mean = std::vector<double>(c, 0.0), running_var = std::vector<double>(c, 1.0);
  double eps = 1e-5;

  double at(const std::vector<double>& x, std::size_t i, std::size_t ch, std::size_t j) const {
    return x[(i * c + ch) * s + j];
  }
  std::vector<double> apply(const std::vector<double>& x, const std::vector<double>& mean,
                            const std::vector<double>& var) const {
    std::vector<double> out(x.size());
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t ch = 0; ch < c; ++ch)
        for (std::size_t j = 0; j < s; ++j)
          out[(i * c + ch) * s + j] = (at(x, i, ch, j) - mean[ch]) / std::sqrt(var[ch] + eps) *
                                          (weight.empty() ? 1 : weight[ch]) +
                                      (bias.empty() ? 0 : bias[ch]);
    return out;
  }
  // One training step: the output with batch statistics; the running statistics move by `factor`.
  std::vector<double> train(const std::vector<double>& x, double factor) {
    std::vector<double> mean(c, 0.0), var(c, 0.0);
    const double count = static_cast<double>(n * s);
    for (std::size_t ch = 0; ch < c; ++ch) {
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < s; ++j) mean[ch] += at(x, i, ch, j) / count;
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < s; ++j) var[ch] += (at(x, i, ch, j) - mean[ch]) * (at(x, i, ch, j) - mean[ch]);
      var[ch] /= count;
      running_mean[ch] = (1 - factor) * running_mean[ch] + factor * mean[ch];
      running_var[ch] = (1 - factor) * running_var[ch] + factor * var[ch] * count / (count - 1);
    }
    return apply(x, mean, var);
  }
  std::vector<double> eval(const std::vector<double>& x) const { return apply(x, running_mean, running_var); }
};

TEST(BatchNorm, ModuleHasLibTorchsDefaultsNamesAndInitialState) {
  torch::nn::BatchNormOptions o(16);
  EXPECT_EQ(o.num_features(), 16);
  EXPECT_EQ(o.eps(), 1e-5);
  EXPECT_EQ(o.momentum(), std::optional<double>(0.1));
  EXPECT_TRUE(o.affine());
  EXPECT_TRUE(o.track_running_stats());

  torch::nn::BatchNorm2d bn(3);
  EXPECT_EQ(bn->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(bn->named_buffers().keys(),
            (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));
  EXPECT_EQ(values(bn->weight), std::vector<double>(3, 1.0));
  EXPECT_EQ(values(bn->bias), std::vector<double>(3, 0.0));
  EXPECT_EQ(values(bn->running_mean), std::vector<double>(3, 0.0));
  EXPECT_EQ(values(bn->running_var), std::vector<double>(3, 1.0));
  EXPECT_EQ(bn->num_batches_tracked.dtype(), torch::kInt64);
  EXPECT_EQ(bn->num_batches_tracked.dim(), 0);
  EXPECT_EQ(bn->num_batches_tracked.item<std::int64_t>(), 0);
  EXPECT_FALSE(bn->running_mean.requires_grad());

  torch::nn::BatchNorm1d bare(torch::nn::BatchNormOptions(4).affine(false).track_running_stats(false));
  EXPECT_TRUE(bare->parameters().empty());
  EXPECT_TRUE(bare->buffers().empty());
  EXPECT_FALSE(bare->running_mean.defined());
}

TEST(BatchNorm, TrainingStepsMatchTheReferenceAndUpdateRunningStats) {
  const std::size_t n = 4, c = 3, l = 2;
  torch::nn::BatchNorm1d bn(torch::nn::BatchNormOptions(3).eps(1e-3));
  bn->to(torch::kFloat64);
  Reference ref{n, c, l, gradcheck::random_values(3, 21, 0.5, 1.5), gradcheck::random_values(3, 22)};
  ref.eps = 1e-3;
  {
    torch::NoGradGuard no_grad;
    bn->weight.copy_(dbl(ref.weight, {3}));
    bn->bias.copy_(dbl(ref.bias, {3}));
  }
  for (std::uint32_t step = 0; step < 3; ++step) {
    std::vector<double> x = gradcheck::random_values(n * c * l, 30 + step, -1.0 + step, 2.0 + 2 * step);
    expect_near(values(bn(dbl(x, {4, 3, 2}))), ref.train(x, 0.1), 1e-10);
  }
  EXPECT_EQ(bn->num_batches_tracked.item<std::int64_t>(), 3);
  expect_near(values(bn->running_mean), ref.running_mean, 1e-12);
  expect_near(values(bn->running_var), ref.running_var, 1e-12);
  EXPECT_FALSE(bn->running_mean.requires_grad());
  EXPECT_FALSE(bn->running_var.requires_grad());

  // Eval normalizes with the running statistics and leaves them and the count alone.
  bn->eval();
  std::vector<double> x = gradcheck::random_values(n * c * l, 40);
  expect_near(values(bn(dbl(x, {4, 3, 2}))), ref.eval(x), 1e-10);
  EXPECT_EQ(bn->num_batches_tracked.item<std::int64_t>(), 3);
  expect_near(values(bn->running_mean), ref.running_mean, 1e-12);
}

TEST(BatchNorm, MomentumNulloptIsTheCumulativeAverage) {
  const std::size_t n = 5, c = 2;
  torch::nn::BatchNorm1d bn(torch::nn::BatchNormOptions(2).momentum(std::nullopt).affine(false));
  bn->to(torch::kFloat64);
  Reference ref{n, c, 1, {}, {}};
  for (std::uint32_t step = 1; step <= 4; ++step) {
    std::vector<double> x = gradcheck::random_values(n * c, 50 + step, -1.0 * step, 2.0 * step);
    expect_near(values(bn(dbl(x, {5, 2}))), ref.train(x, 1.0 / step), 1e-10);
  }
  EXPECT_EQ(bn->num_batches_tracked.item<std::int64_t>(), 4);
  expect_near(values(bn->running_mean), ref.running_mean, 1e-12);
  expect_near(values(bn->running_var), ref.running_var, 1e-12);

  bn->reset_running_stats();
  EXPECT_EQ(bn->num_batches_tracked.item<std::int64_t>(), 0);
  EXPECT_EQ(values(bn->running_mean), std::vector<double>(2, 0.0));
  EXPECT_EQ(values(bn->running_var), std::vector<double>(2, 1.0));
}

TEST(BatchNorm, BatchNorm2dInTrainAndEval) {
  const std::size_t n = 2, c = 3, s = 6;
  torch::nn::BatchNorm2d bn(3);
  std::vector<double> x = gradcheck::random_values(n * c * s, 60, -2.0, 4.0);
  std::vector<float> xf(x.begin(), x.end());
  Tensor input = torch::tensor(xf).reshape({2, 3, 2, 3});
  Reference ref{n, c, s, {}, {}};
  std::vector<double> want = ref.train(x, 0.1);
  Tensor y = bn(input);
  EXPECT_EQ(y.sizes(), (kiln::IntArrayRef{2, 3, 2, 3}));
  expect_near(values(y), want, 1e-5);
  expect_near(values(bn->running_mean), ref.running_mean, 1e-6);
  expect_near(values(bn->running_var), ref.running_var, 1e-6);
  bn->eval();
  expect_near(values(bn(input)), ref.eval(x), 1e-5);

  // reset_parameters restores the running statistics, the count, the weight and the bias.
  {
    torch::NoGradGuard no_grad;
    bn->weight.fill_(3);
  }
  bn->reset_parameters();
  EXPECT_EQ(values(bn->weight), std::vector<double>(3, 1.0));
  EXPECT_EQ(values(bn->running_mean), std::vector<double>(3, 0.0));
  EXPECT_EQ(bn->num_batches_tracked.item<std::int64_t>(), 0);
}

TEST(BatchNorm, WithoutRunningStatsEvalUsesBatchStatistics) {
  torch::nn::BatchNorm1d bn(torch::nn::BatchNormOptions(2).track_running_stats(false));
  bn->to(torch::kFloat64);
  bn->eval();
  std::vector<double> x = gradcheck::random_values(8, 70);
  Reference ref{4, 2, 1, {}, {}};
  expect_near(values(bn(dbl(x, {4, 2}))), ref.train(x, 0.1), 1e-10);
}

TEST(BatchNorm, FunctionalAndFreeForms) {
  const std::size_t n = 3, c = 2, l = 2;
  std::vector<double> x = gradcheck::random_values(n * c * l, 80);
  Reference ref{n, c, l, {2.0, 0.5}, {0.1, -0.2}};
  ref.running_mean = {0.3, -0.4};
  ref.running_var = {1.5, 0.7};
  Tensor rm = dbl(ref.running_mean, {2}), rv = dbl(ref.running_var, {2});
  auto opts = F::BatchNormFuncOptions().weight(dbl(ref.weight, {2})).bias(dbl(ref.bias, {2}));
  EXPECT_FALSE(opts.training());
  EXPECT_EQ(opts.momentum(), std::optional<double>(0.1));
  EXPECT_EQ(opts.eps(), 1e-5);
  expect_near(values(F::batch_norm(dbl(x, {3, 2, 2}), rm, rv, opts)), ref.eval(x), 1e-12);

  std::vector<double> want = ref.train(x, 0.25);
  expect_near(values(F::batch_norm(dbl(x, {3, 2, 2}), rm, rv, opts.training(true).momentum(0.25))), want, 1e-12);
  expect_near(values(rm), ref.running_mean, 1e-12);
  expect_near(values(rv), ref.running_var, 1e-12);

  want = ref.train(x, 0.5);
  expect_near(values(torch::batch_norm(dbl(x, {3, 2, 2}), dbl(ref.weight, {2}), dbl(ref.bias, {2}), rm, rv, true, 0.5,
                                       1e-5, false)),
              want, 1e-12);
  expect_near(values(rm), ref.running_mean, 1e-12);
  expect_near(values(rv), ref.running_var, 1e-12);
  // Training without running statistics.
  expect_near(values(torch::batch_norm(dbl(x, {3, 2, 2}), {}, {}, {}, {}, true, 0.1, 1e-5, false)),
              Reference{n, c, l, {}, {}}.train(x, 0.1), 1e-12);
}

TEST(BatchNorm, GradientsWithRespectToInputWeightAndBias) {
  auto fn = [](const std::vector<Tensor>& in) {
    return F::batch_norm(in[0], {}, {}, F::BatchNormFuncOptions().weight(in[1]).bias(in[2]).training(true));
  };
  EXPECT_TRUE(gradcheck::check(fn, {Input{gradcheck::random_values(12, 90), {3, 2, 2}},
                                    Input{gradcheck::random_values(2, 91, 0.5, 1.5), {2}},
                                    Input{gradcheck::random_values(2, 92), {2}}}));
  // In eval the running statistics are constants of an affine map.
  auto eval_fn = [](const std::vector<Tensor>& in) {
    return F::batch_norm(in[0], in[3], in[4], F::BatchNormFuncOptions().weight(in[1]).bias(in[2]));
  };
  EXPECT_TRUE(gradcheck::check(eval_fn, {Input{gradcheck::random_values(12, 94), {3, 2, 2}},
                                         Input{gradcheck::random_values(2, 95, 0.5, 1.5), {2}},
                                         Input{gradcheck::random_values(2, 96), {2}},
                                         Input{{0.2, -0.3}, {2}, false, false},
                                         Input{{0.8, 1.7}, {2}, false, false}}));
  // Through the module, whose running statistics are updated on the side.
  torch::nn::BatchNorm2d bn(2);
  bn->to(torch::kFloat64);
  auto module_fn = [&bn](const std::vector<Tensor>& in) { return bn(in[0]); };
  EXPECT_TRUE(gradcheck::check(module_fn, {Input{gradcheck::random_values(16, 93), {2, 2, 2, 2}}}));
}

TEST(BatchNorm, PrintsAsLibTorch) {
  EXPECT_EQ(printed(*torch::nn::BatchNorm2d(16)),
            "kiln::nn::BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)");
  EXPECT_EQ(printed(*torch::nn::BatchNorm1d(
                torch::nn::BatchNormOptions(4).eps(0.001).momentum(std::nullopt).affine(false).track_running_stats(
                    false))),
            "kiln::nn::BatchNorm1d(4, eps=0.001, momentum=None, affine=false, track_running_stats=false)");
}

TEST(BatchNorm, WrongRankOrChannelCountIsAShapeErrorNamingTheShape) {
  torch::nn::BatchNorm1d bn1(3);
  torch::nn::BatchNorm2d bn2(3);
  expect_error<kiln::ShapeError>([&] { bn1(torch::zeros({2, 3, 4, 5})); },
                                 {"[nn::BatchNorm1d]", "2D or 3D", "4D", "[2, 3, 4, 5]"});
  expect_error<kiln::ShapeError>([&] { bn2(torch::zeros({2, 3, 4})); }, {"[nn::BatchNorm2d]", "4D", "[2, 3, 4]"});
  expect_error<kiln::ShapeError>([&] { bn1(torch::zeros({2, 5})); }, {"[nn::BatchNorm1d]", "[2, 5]", "3 channels"});
  expect_error<kiln::ShapeError>([&] { bn2(torch::zeros({2, 4, 2, 2})); }, {"[nn::BatchNorm2d]", "[2, 4, 2, 2]"});
  EXPECT_EQ(bn1->num_batches_tracked.item<std::int64_t>(), 0);
}

TEST(BatchNorm, OneValuePerChannelInTrainingIsAValueError) {
  torch::nn::BatchNorm1d bn(3);
  expect_error<kiln::ValueError>([&] { bn(torch::zeros({1, 3})); },
                                 {"Expected more than 1 value per channel when training", "[1, 3]"});
  EXPECT_EQ(bn->num_batches_tracked.item<std::int64_t>(), 0);
  torch::nn::BatchNorm2d bn2(2);
  expect_error<kiln::ValueError>([&] { bn2(torch::zeros({1, 2, 1, 1})); }, {"[1, 2, 1, 1]"});
  expect_error<kiln::ValueError>(
      [] { F::batch_norm(torch::zeros({1, 3}), {}, {}, F::BatchNormFuncOptions().training(true)); },
      {"[nn::functional::batch_norm]", "Expected more than 1 value per channel when training", "[1, 3]"});
  // In eval the running statistics are used: one example is fine.
  bn->eval();
  EXPECT_EQ(bn(torch::ones({1, 3})).sizes(), (kiln::IntArrayRef{1, 3}));
}

TEST(BatchNorm, FunctionalArgumentErrors) {
  Tensor x = torch::zeros({4, 3});
  expect_error<kiln::ValueError>([&] { torch::batch_norm(x, {}, {}, {}, {}, false, 0.1, 1e-5, false); },
                                 {"[batch_norm]", "running_mean and running_var", "[4, 3]"});
  expect_error<kiln::ShapeError>(
      [&] { torch::batch_norm(x, torch::ones({2}), {}, torch::zeros({3}), torch::ones({3}), false, 0.1, 1e-5, false); },
      {"[batch_norm]", "weight of shape [3]", "[4, 3]", "got [2]"});
  expect_error<kiln::ShapeError>(
      [&] { F::batch_norm(x, torch::zeros({4}), torch::ones({3})); }, {"running_mean of shape [3]", "got [4]"});
  expect_error<kiln::ShapeError>([] { torch::batch_norm(torch::zeros({4}), {}, {}, {}, {}, true, 0.1, 1e-5, false); },
                                 {"[batch_norm]", "[4]"});
  expect_error<kiln::ValueError>(
      [&] { F::batch_norm(x, {}, {}, F::BatchNormFuncOptions().training(true).momentum(std::nullopt)); },
      {"[nn::functional::batch_norm]", "momentum"});
}

}  // namespace

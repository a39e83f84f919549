// Dropout and Dropout2d: the mask's keep rate and 1 / (1 - p) scaling with a
// fixed seed, reproducibility under manual_seed, gradients (gradcheck in
// float64 with the mask fixed by reseeding), train/eval, whole-channel
// masks, printing and the errors for bad p and bad ranks.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <kiln/torch.h>

#include "tests/autograd/gradcheck.h"
#include "tests/nn/nn_helpers.h"

namespace {

using knn::expect_error;
using knn::values;
using gradcheck::Input;
using kiln::Tensor;
using V = std::vector<Tensor>;
using Shape = std::vector<std::int64_t>;
namespace F = torch::nn::functional;

TEST(Dropout, KeepsAboutOneMinusPAndScalesKeptValuesByItsInverse) {
  torch::manual_seed(42);
  const double p = 0.3;
  const std::int64_t n = 20000;
  Tensor x = torch::rand({n}, torch::kFloat64) + 1;  // in [1, 2): no zeros of its own
  const std::vector<double> in = values(x), out = values(torch::dropout(x, p, true));
  std::int64_t kept = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (out[i] == 0) continue;
    ++kept;
    EXPECT_NEAR(out[i], in[i] / (1 - p), 1e-12) << "at " << i;
  }
  // Binomial(n, 0.7): standard deviation ~65 elements; 5 sigma.
  EXPECT_NEAR(static_cast<double>(kept) / n, 1 - p, 5 * std::sqrt(p * (1 - p) / n));
}

TEST(Dropout, ManualSeedReproducesTheMask) {
  Tensor x = torch::ones({64, 16});
  torch::manual_seed(7);
  const std::vector<double> a = values(torch::dropout(x, 0.5, true));
  torch::manual_seed(7);
  const std::vector<double> b = values(torch::nn::Dropout(0.5)(x));
  const std::vector<double> c = values(torch::dropout(x, 0.5, true));  // the stream moved on
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(Dropout, PZeroIsTheInputAndPOneIsZeros) {
  Tensor x = torch::randn({4, 5});
  EXPECT_TRUE(torch::dropout(x, 0, true).is_same(x));
  EXPECT_TRUE(torch::dropout(x, 0.5, false).is_same(x));
  for (double v : values(torch::dropout(x, 1, true))) EXPECT_EQ(v, 0.0);
  for (double v : values(F::dropout(x, F::DropoutFuncOptions().p(1)))) EXPECT_EQ(v, 0.0);
  for (double v : values(F::dropout2d(torch::randn({2, 3, 4, 4}), F::Dropout2dFuncOptions().p(1)))) EXPECT_EQ(v, 0.0);
}

TEST(Dropout, GradientIsTheSameScaledMask) {
  const std::vector<double> x = gradcheck::random_values(3 * 4 * 5, 13);
  // Reseeding inside the function fixes the mask for every evaluation.
  for (double p : {0.0, 0.3, 1.0}) {
    SCOPED_TRACE(p);
    EXPECT_TRUE(gradcheck::check(
        [p](const V& in) {
          torch::manual_seed(11);
          return torch::dropout(in[0], p, true);
        },
        {Input{x, {3, 4, 5}}}));
    EXPECT_TRUE(gradcheck::check(
        [p](const V& in) {
          torch::manual_seed(11);
          return F::dropout2d(in[0].reshape({3, 4, 5, 1}), F::Dropout2dFuncOptions().p(p));
        },
        {Input{x, {3, 4, 5}}}));
  }
  // The gradient of sum(dropout(x)) is the mask scaled: the output over the input.
  torch::manual_seed(3);
  Tensor leaf = (torch::rand({100}, torch::kFloat64) + 1).detach().requires_grad_(true);
  Tensor y = torch::dropout(leaf, 0.25, true);
  y.sum().backward();
  const std::vector<double> g = values(leaf.grad()), ys = values(y), xs = values(leaf);
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], ys[i] / xs[i], 1e-12);
}

TEST(Dropout, ModuleDropsOnlyWhileTraining) {
  torch::nn::Dropout drop(torch::nn::DropoutOptions().p(0.5));
  Tensor x = torch::ones({1000});
  torch::manual_seed(1);
  const std::vector<double> trained = values(drop(x));
  std::size_t zeros = 0;
  for (double v : trained) {
    EXPECT_TRUE(v == 0 || v == 2);
    zeros += v == 0;
  }
  EXPECT_GT(zeros, 400u);
  EXPECT_LT(zeros, 600u);
  drop->eval();
  EXPECT_TRUE(drop(x).is_same(x));
  torch::nn::Dropout2d drop2d;
  drop2d->eval();
  Tensor img = torch::randn({2, 3, 4, 4});
  EXPECT_TRUE(drop2d(img).is_same(img));
}

TEST(Dropout, InplaceMultipliesTheInput) {
  torch::manual_seed(5);
  Tensor x = torch::ones({200});
  Tensor y = torch::nn::Dropout(torch::nn::DropoutOptions(0.5).inplace(true))(x);
  EXPECT_EQ(values(x), values(y));
  std::size_t zeros = 0;
  for (double v : values(x)) zeros += v == 0;
  EXPECT_GT(zeros, 0u);
}

// Every (n, c) plane is all zeros or all 1 / (1 - p) of a ones input.
void expect_whole_channels(const std::vector<double>& out, std::int64_t planes, std::int64_t plane_size, double p,
                           std::int64_t& dropped) {
  dropped = 0;
  for (std::int64_t c = 0; c < planes; ++c) {
    const double first = out[c * plane_size];
    EXPECT_TRUE(first == 0 || std::abs(first - 1 / (1 - p)) < 1e-12) << first;
    for (std::int64_t i = 0; i < plane_size; ++i) EXPECT_EQ(out[c * plane_size + i], first) << "plane " << c;
    dropped += first == 0;
  }
}

TEST(Dropout2d, ZeroesWholeChannelsBatchedAndUnbatched) {
  torch::manual_seed(9);
  std::int64_t dropped = 0;
  Tensor batched = torch::nn::Dropout2d(0.4)(torch::ones({8, 16, 3, 5}, torch::kFloat64));
  EXPECT_EQ(batched.sizes().vec(), (Shape{8, 16, 3, 5}));
  expect_whole_channels(values(batched), 8 * 16, 15, 0.4, dropped);
  EXPECT_GT(dropped, 20);
  EXPECT_LT(dropped, 80);
  Tensor unbatched = torch::nn::Dropout2d(0.4)(torch::ones({32, 3, 5}, torch::kFloat64));
  EXPECT_EQ(unbatched.sizes().vec(), (Shape{32, 3, 5}));
  expect_whole_channels(values(unbatched), 32, 15, 0.4, dropped);
  EXPECT_GT(dropped, 2);
  EXPECT_LT(dropped, 30);
  // feature_dropout draws per (N, C) of any input of at least 2 dims.
  Tensor features = torch::feature_dropout(torch::ones({4, 6, 7}, torch::kFloat64), 0.5, true);
  expect_whole_channels(values(features), 24, 7, 0.5, dropped);
}

TEST(Dropout, OptionsDefaultAndPrintAsLibTorch) {
  EXPECT_EQ(torch::nn::DropoutOptions().p(), 0.5);
  EXPECT_FALSE(torch::nn::DropoutOptions().inplace());
  EXPECT_EQ(F::DropoutFuncOptions().p(), 0.5);
  EXPECT_TRUE(F::DropoutFuncOptions().training());
  std::ostringstream out;
  out << *torch::nn::Dropout() << "\n"
      << *torch::nn::Dropout(torch::nn::DropoutOptions(0.25).inplace(true)) << "\n"
      << *torch::nn::Dropout2d(0.3);
  EXPECT_EQ(out.str(),
            "kiln::nn::Dropout(p=0.5, inplace=false)\n"
            "kiln::nn::Dropout(p=0.25, inplace=true)\n"
            "kiln::nn::Dropout2d(p=0.3, inplace=false)");
}

TEST(Dropout, RejectsPOutsideZeroOneNamingP) {
  Tensor x = torch::ones({3});
  expect_error<kiln::ValueError>([&] { torch::dropout(x, 1.5, true); },
                                 {"[dropout] dropout probability has to be between 0 and 1, but got p=1.5"});
  // Checked even when nothing would be dropped (eval mode), as LibTorch does.
  EXPECT_THROW(torch::dropout(x, -0.1, false), kiln::ValueError);
  EXPECT_THROW(torch::dropout(x, std::nan(""), true), kiln::ValueError);
  EXPECT_THROW(F::dropout(x, F::DropoutFuncOptions().p(2)), kiln::ValueError);
  expect_error<kiln::ValueError>([] { torch::nn::Dropout(-0.5); },
                                 {"[nn::Dropout] dropout probability has to be between 0 and 1, but got p=-0.5"});
  EXPECT_THROW(torch::nn::Dropout2d(1.01), kiln::ValueError);
  EXPECT_THROW(F::dropout2d(torch::ones({2, 3, 4}), F::Dropout2dFuncOptions().p(-1)), kiln::ValueError);
}

TEST(Dropout, RejectsBadRanksAndDtypesNamingTheShape) {
  expect_error<kiln::ShapeError>([] { torch::feature_dropout(torch::ones({5}), 0.5, true); }, {"got shape [5]"});
  EXPECT_THROW(F::dropout2d(torch::ones({2, 3})), kiln::ShapeError);
  expect_error<kiln::ShapeError>([] { torch::nn::Dropout2d()(torch::ones({2, 3, 4, 5, 6})); },
                                 {"[dropout2d] needs a [N, C, H, W] or [C, H, W] input, got shape [2, 3, 4, 5, 6]"});
  // Nothing is checked but p when nothing is dropped, as in LibTorch.
  Tensor line = torch::ones({5});
  EXPECT_TRUE(torch::feature_dropout(line, 0.5, false).is_same(line));
  expect_error<kiln::DtypeError>([] { torch::dropout(torch::ones({4}, torch::kInt64), 0.5, true); },
                                 {"of shape [4]"});
}

// LibTorch's MNIST example network, written as there: Dropout2d as a member,
// torch::dropout(x, 0.5, is_training()) in forward.
struct MnistNetImpl : torch::nn::Module {
  MnistNetImpl()
      : conv1(torch::nn::Conv2dOptions(1, 10, /*kernel_size=*/5)),
        conv2(torch::nn::Conv2dOptions(10, 20, /*kernel_size=*/5)),
        fc1(320, 50),
        fc2(50, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(torch::max_pool2d(conv1->forward(x), 2));
    x = torch::relu(torch::max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = torch::relu(fc1->forward(x));
    x = torch::dropout(x, /*p=*/0.5, /*train=*/is_training());
    x = fc2->forward(x);
    return torch::log_softmax(x, /*dim=*/1);
  }
  torch::nn::Conv2d conv1;
  torch::nn::Conv2d conv2;
  torch::nn::Dropout2d conv2_drop;
  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};
TORCH_MODULE(MnistNet);

TEST(Dropout, LibTorchsMnistNetTrainsAndEvaluatesDeterministically) {
  torch::manual_seed(1);
  MnistNet net;
  Tensor x = torch::randn({2, 1, 28, 28});
  net->eval();
  const std::vector<double> a = values(net->forward(x)), b = values(net->forward(x));
  EXPECT_EQ(a, b);  // no dropout in eval mode
  net->train();
  torch::manual_seed(2);
  Tensor y = net->forward(x);
  EXPECT_EQ(y.sizes().vec(), (Shape{2, 10}));
  EXPECT_NE(values(y), a);
  torch::manual_seed(2);
  EXPECT_EQ(values(net->forward(x)), values(y));  // the same masks under the same seed
  y.sum().backward();
  for (const Tensor& p : net->parameters()) EXPECT_TRUE(p.grad().defined());
}

}  // namespace

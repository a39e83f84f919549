// The activation modules, Flatten and Identity: values against plain loops,
// gradients with gradcheck in float64, options' defaults and printing as
// LibTorch lays it out (with kiln's namespace).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include <kiln/torch.h>

#include "tests/autograd/gradcheck.h"
#include "tests/nn/nn_helpers.h"

namespace {

using knn::values;
using knn::dbl;
using knn::printed;
using gradcheck::Input;
using kiln::Tensor;
using V = std::vector<Tensor>;
using Shape = std::vector<std::int64_t>;

// Each elementwise module against its formula, value and gradient.
TEST(Activation, ElementwiseModulesMatchPlainFormulasAndGradcheck) {
  const double k = std::sqrt(2 / std::numbers::pi);
  struct Case {
    std::string name;
    std::function<Tensor(const Tensor&)> module;
    std::function<double(double)> plain;
  };
  const std::vector<Case> cases = {
      {"ReLU", [](const Tensor& x) { return torch::nn::ReLU()(x); }, [](double x) { return x > 0 ? x : 0; }},
      {"LeakyReLU", [](const Tensor& x) { return torch::nn::LeakyReLU()(x); },
       [](double x) { return x > 0 ? x : 0.01 * x; }},
      {"LeakyReLU(0.2)",
       [](const Tensor& x) { return torch::nn::functional::leaky_relu(x, torch::nn::functional::LeakyReLUFuncOptions().negative_slope(0.2)); },
       [](double x) { return x > 0 ? x : 0.2 * x; }},
      {"GELU", [](const Tensor& x) { return torch::nn::GELU()(x); },
       [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
      {"GELU(tanh)", [](const Tensor& x) { return torch::nn::GELU(torch::nn::GELUOptions().approximate("tanh"))(x); },
       [k](double x) { return 0.5 * x * (1 + std::tanh(k * (x + 0.044715 * x * x * x))); }},
      {"Tanh", [](const Tensor& x) { return torch::nn::Tanh()(x); }, [](double x) { return std::tanh(x); }},
      {"Sigmoid", [](const Tensor& x) { return torch::nn::Sigmoid()(x); },
       [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"SiLU", [](const Tensor& x) { return torch::nn::SiLU()(x); }, [](double x) { return x / (1 + std::exp(-x)); }},
  };
  // No value at ReLU's kink: central differences need |x| > eps.
  std::vector<double> x = gradcheck::random_values(24, 5);
  for (double& v : x)
    if (std::abs(v) < 1e-3) v = 0.5;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::vector<double> got = values(c.module(dbl(x, {2, 3, 4})));
    ASSERT_EQ(got.size(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(got[i], c.plain(x[i]), 1e-12) << "at " << i;
    EXPECT_TRUE(gradcheck::check([&](const V& in) { return c.module(in[0]); }, {Input{x, {2, 3, 4}}}));
  }
}

TEST(Activation, InplaceReLURectifiesItsInput) {
  Tensor x = torch::tensor({-1.0, 2.0, -3.0, 4.0});
  Tensor y = torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true))(x);
  EXPECT_EQ(values(x), (std::vector<double>{0, 2, 0, 4}));
  EXPECT_EQ(values(y), (std::vector<double>{0, 2, 0, 4}));
  EXPECT_FALSE(torch::nn::ReLUOptions().inplace());
}

TEST(Activation, InplaceLeakyReLURewritesItsInputAndIsRejectedOnALeafThatRequiresGrad) {
  Tensor x = torch::tensor({-1.0, 2.0, -3.0, 4.0});
  Tensor y = torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.5).inplace(true))(x);
  EXPECT_EQ(values(x), (std::vector<double>{-0.5, 2, -1.5, 4}));
  EXPECT_TRUE(y.is_same(x));
  knn::expect_near(values(torch::leaky_relu(torch::tensor({-2.0, 0.0, 3.0}))), {-0.02, 0, 3}, 1e-7);
  Tensor leaf = torch::ones({2}, torch::requires_grad());
  EXPECT_THROW(torch::leaky_relu_(leaf), kiln::AutogradError);
  EXPECT_THROW(torch::leaky_relu(torch::ones({2}, torch::kInt64)), kiln::DtypeError);
}

TEST(Activation, SoftmaxAndLogSoftmaxNormalizeTheirDim) {
  const std::vector<double> x = gradcheck::random_values(2 * 3 * 4, 9);
  for (std::int64_t dim : {0, 1, 2, -1}) {
    SCOPED_TRACE(dim);
    const std::int64_t d = dim < 0 ? dim + 3 : dim;
    const Shape shape{2, 3, 4};
    std::vector<double> want(x.size()), want_log(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      // The positions sharing every index but d with i.
      Shape idx{static_cast<std::int64_t>(i) / 12, static_cast<std::int64_t>(i) / 4 % 3,
                static_cast<std::int64_t>(i) % 4};
      double denom = 0;
      for (std::int64_t j = 0; j < shape[d]; ++j) {
        Shape other = idx;
        other[d] = j;
        denom += std::exp(x[other[0] * 12 + other[1] * 4 + other[2]]);
      }
      want[i] = std::exp(x[i]) / denom;
      want_log[i] = x[i] - std::log(denom);
    }
    const std::vector<double> got = values(torch::nn::Softmax(dim)(dbl(x, shape)));
    const std::vector<double> got_log =
        values(torch::nn::LogSoftmax(torch::nn::LogSoftmaxOptions(dim))(dbl(x, shape)));
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 1e-12);
      EXPECT_NEAR(got_log[i], want_log[i], 1e-12);
    }
    EXPECT_TRUE(gradcheck::check([&](const V& in) { return torch::nn::Softmax(dim)(in[0]); }, {Input{x, shape}}));
    EXPECT_TRUE(gradcheck::check([&](const V& in) { return torch::nn::LogSoftmax(dim)(in[0]); }, {Input{x, shape}}));
  }
}

TEST(Flatten, MergesStartToEndDimWithLibTorchsDefaults) {
  torch::nn::FlattenOptions defaults;
  EXPECT_EQ(defaults.start_dim(), 1);
  EXPECT_EQ(defaults.end_dim(), -1);
  const std::vector<double> x = gradcheck::random_values(2 * 3 * 4 * 5, 3);
  Tensor a = torch::nn::Flatten()(dbl(x, {2, 3, 4, 5}));
  EXPECT_EQ(a.sizes().vec(), (Shape{2, 60}));
  EXPECT_EQ(values(a), x);  // row-major order is kept
  Tensor b = torch::nn::Flatten(torch::nn::FlattenOptions().start_dim(1).end_dim(2))(dbl(x, {2, 3, 4, 5}));
  EXPECT_EQ(b.sizes().vec(), (Shape{2, 12, 5}));
  Tensor c = torch::nn::Flatten(torch::nn::FlattenOptions().start_dim(0))(dbl(x, {2, 3, 4, 5}));
  EXPECT_EQ(c.sizes().vec(), (Shape{120}));
  EXPECT_TRUE(gradcheck::check([](const V& in) { return torch::nn::Flatten()(in[0]); }, {Input{x, {2, 3, 4, 5}}}));
}

TEST(Identity, ReturnsItsInput) {
  Tensor x = torch::randn({3, 2});
  EXPECT_TRUE(torch::nn::Identity()(x).is_same(x));
  EXPECT_TRUE(torch::nn::Identity()->parameters().empty());
}

TEST(Activation, PrintsAsLibTorch) {
  EXPECT_EQ(printed(torch::nn::ReLU()), "kiln::nn::ReLU()");
  EXPECT_EQ(printed(torch::nn::ReLU(torch::nn::ReLUOptions(true))), "kiln::nn::ReLU(inplace=true)");
  EXPECT_EQ(printed(torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2))),
            "kiln::nn::LeakyReLU(negative_slope=0.2)");
  EXPECT_EQ(printed(torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().inplace(true))),
            "kiln::nn::LeakyReLU(negative_slope=0.01, inplace=true)");
  EXPECT_EQ(printed(torch::nn::GELU()), "kiln::nn::GELU()");
  EXPECT_EQ(printed(torch::nn::Tanh()), "kiln::nn::Tanh()");
  EXPECT_EQ(printed(torch::nn::Sigmoid()), "kiln::nn::Sigmoid()");
  EXPECT_EQ(printed(torch::nn::SiLU()), "kiln::nn::SiLU()");
  EXPECT_EQ(printed(torch::nn::Softmax(1)), "kiln::nn::Softmax(dim=1)");
  EXPECT_EQ(printed(torch::nn::LogSoftmax(-1)), "kiln::nn::LogSoftmax(dim=-1)");
  EXPECT_EQ(printed(torch::nn::Flatten()), "kiln::nn::Flatten(start_dim=1, end_dim=-1)");
  EXPECT_EQ(printed(torch::nn::Flatten(torch::nn::FlattenOptions().start_dim(0).end_dim(2))),
            "kiln::nn::Flatten(start_dim=0, end_dim=2)");
  EXPECT_EQ(printed(torch::nn::Identity()), "kiln::nn::Identity()");
  EXPECT_EQ(torch::nn::GELUOptions().approximate(), "none");
}

}  // namespace

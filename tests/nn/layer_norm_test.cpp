// LayerNorm and layer_norm against plain loops over std::vector, their
// gradients against central differences in float64, LibTorch's defaults and
// printing, and the errors for shapes that do not fit.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <kiln/memory/memory.h>
#include <kiln/torch.h>

#include "tests/autograd/gradcheck.h"
#include "tests/nn/nn_helpers.h"

namespace {

using knn::dbl;
using knn::expect_near;
using knn::printed;
using knn::values;
using gradcheck::Input;
using kiln::Tensor;
namespace F = torch::nn::functional;

// Rows of `inner` consecutive values, each normalized with its mean and biased variance, then scaled and shifted.
std::vector<double> reference(const std::vector<double>& x, std::size_t inner, const std::vector<double>& w,
                              const std::vector<double>& b, double eps) {
  std::vector<double> out(x.size());
  for (std::size_t r = 0; r < x.size() / inner; ++r) {
    double mean = 0, var = 0;
    for (std::size_t i = 0; i < inner; ++i) mean += x[r * inner + i];
    mean /= static_cast<double>(inner);
    for (std::size_t i = 0; i < inner; ++i) var += (x[r * inner + i] - mean) * (x[r * inner + i] - mean);
    var /= static_cast<double>(inner);
    for (std::size_t i = 0; i < inner; ++i)
      out[r * inner + i] = (x[r * inner + i] - mean) / std::sqrt(var + eps) * (w.empty() ? 1 : w[i]) +
                           (b.empty() ? 0 : b[i]);
  }
  return out;
}

const std::vector<double> kX = gradcheck::random_values(24, 3, -2.0, 3.0);  // [2, 3, 4]
const std::vector<double> kW = gradcheck::random_values(12, 4, 0.5, 1.5);   // [3, 4]
const std::vector<double> kB = gradcheck::random_values(12, 5);             // [3, 4]

TEST(LayerNorm, FreeAndFunctionalFormsMatchTheReference) {
  Tensor x = dbl(kX, {2, 3, 4});
  expect_near(values(torch::layer_norm(x, {3, 4}, dbl(kW, {3, 4}), dbl(kB, {3, 4}))), reference(kX, 12, kW, kB, 1e-5),
              1e-12);
  expect_near(values(torch::layer_norm(x, {4})), reference(kX, 4, {}, {}, 1e-5), 1e-12);
  auto opts = F::LayerNormFuncOptions({4}).weight(dbl({1, 2, 3, 4}, {4})).eps(0.5);
  expect_near(values(F::layer_norm(x, opts)), reference(kX, 4, {1, 2, 3, 4}, {}, 0.5), 1e-12);
}

TEST(LayerNorm, FloatInputMatchesTheReference) {
  std::vector<float> xf(kX.begin(), kX.end());
  Tensor x = torch::tensor(xf).reshape({6, 4});
  expect_near(values(torch::layer_norm(x, {4})), reference(kX, 4, {}, {}, 1e-5), 1e-5);
}

TEST(LayerNorm, ModuleHasLibTorchsDefaultsAndParameters) {
  torch::nn::LayerNormOptions o({10});
  EXPECT_EQ(o.normalized_shape(), (std::vector<std::int64_t>{10}));
  EXPECT_EQ(o.eps(), 1e-5);
  EXPECT_TRUE(o.elementwise_affine());

  torch::nn::LayerNorm ln(std::vector<std::int64_t>{3, 4});
  EXPECT_EQ(ln->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(ln->weight.sizes(), (kiln::IntArrayRef{3, 4}));
  EXPECT_EQ(values(ln->weight), std::vector<double>(12, 1.0));
  EXPECT_EQ(values(ln->bias), std::vector<double>(12, 0.0));
  EXPECT_TRUE(ln->weight.requires_grad());
  EXPECT_TRUE(ln->named_buffers().is_empty());

  torch::nn::LayerNorm plain(torch::nn::LayerNormOptions({4}).elementwise_affine(false));
  EXPECT_TRUE(plain->parameters().empty());
  EXPECT_FALSE(plain->weight.defined());
}

TEST(LayerNorm, ModuleForwardUsesItsWeightAndBias) {
  torch::nn::LayerNorm ln(torch::nn::LayerNormOptions({3, 4}).eps(1e-3));
  ln->to(torch::kFloat64);
  {
    torch::NoGradGuard no_grad;
    ln->weight.copy_(dbl(kW, {3, 4}));
    ln->bias.copy_(dbl(kB, {3, 4}));
  }
  Tensor y = ln(dbl(kX, {2, 3, 4}));
  EXPECT_EQ(y.sizes(), (kiln::IntArrayRef{2, 3, 4}));
  expect_near(values(y), reference(kX, 12, kW, kB, 1e-3), 1e-12);
  ln->reset_parameters();
  EXPECT_EQ(values(ln->weight), std::vector<double>(12, 1.0));
  EXPECT_EQ(values(ln->bias), std::vector<double>(12, 0.0));
}

TEST(LayerNorm, GradientsWithRespectToInputWeightAndBias) {
  auto fn = [](const std::vector<Tensor>& in) { return torch::layer_norm(in[0], {4}, in[1], in[2]); };
  EXPECT_TRUE(gradcheck::check(fn, {Input{gradcheck::random_values(12, 8), {3, 4}},
                                    Input{gradcheck::random_values(4, 9, 0.5, 1.5), {4}},
                                    Input{gradcheck::random_values(4, 10), {4}}}));
  auto two_dims = [](const std::vector<Tensor>& in) {
    return F::layer_norm(in[0], F::LayerNormFuncOptions({2, 3}).weight(in[1]).eps(1e-3));
  };
  EXPECT_TRUE(gradcheck::check(two_dims, {Input{gradcheck::random_values(12, 11), {2, 2, 3}},
                                          Input{gradcheck::random_values(6, 12, 0.5, 1.5), {2, 3}}}));
}

TEST(LayerNorm, GradientsWithOnlyOneAffineTensorOrNone) {
  const Input x{gradcheck::random_values(12, 13), {3, 4}};
  auto bias_only = [](const std::vector<Tensor>& in) { return torch::layer_norm(in[0], {4}, {}, in[1]); };
  EXPECT_TRUE(gradcheck::check(bias_only, {x, Input{gradcheck::random_values(4, 14), {4}}}));
  auto plain = [](const std::vector<Tensor>& in) { return torch::layer_norm(in[0], {4}); };
  EXPECT_TRUE(gradcheck::check(plain, {x}));
  // The input alone requires grad; the affine tensors are constants.
  auto constants = [](const std::vector<Tensor>& in) {
    return torch::layer_norm(in[0], {4}, torch::full({4}, 1.5, kiln::kFloat64), torch::full({4}, 0.5, kiln::kFloat64));
  };
  EXPECT_TRUE(gradcheck::check(constants, {x}));
}

TEST(LayerNorm, SecondOrderGradients) {
  auto fn = [](const std::vector<Tensor>& in) { return torch::layer_norm(in[0], {4}, in[1], in[2]); };
  EXPECT_TRUE(gradcheck::check_second_order(fn, {Input{gradcheck::random_values(12, 15), {3, 4}},
                                                 Input{gradcheck::random_values(4, 16, 0.5, 1.5), {4}},
                                                 Input{gradcheck::random_values(4, 17), {4}}}));
}

TEST(LayerNorm, NamesItsNodeAsLibTorch) {
  Tensor x = torch::randn({2, 4}, torch::requires_grad());
  EXPECT_EQ(torch::layer_norm(x, {4}).grad_fn()->name(), "NativeLayerNormBackward0");
}

// Backward keeps the input and each row's two statistics, as LibTorch's
// native layer norm does, not the centered and the normalized input.
TEST(LayerNorm, BackwardKeepsTheInputAndNothingTheSizeOfItBeside) {
  Tensor a = torch::randn({256, 1024}, torch::requires_grad());  // 1 MiB
  torch::nn::LayerNorm norm(std::vector<std::int64_t>{1024});
  kiln::sync();
  const std::uint64_t before = kiln::memory::stats().live_bytes;
  Tensor y;
  {
    Tensor x = a * 2;  // an intermediate: only what backward saves keeps it
    y = norm(x);
  }
  kiln::sync();
  const std::uint64_t held = kiln::memory::stats().live_bytes - before - y.numel() * y.element_size();
  EXPECT_LE(held, a.numel() * a.element_size() + (64 << 10)) << held << " bytes held for backward beside the output";
  y.sum().backward();
  EXPECT_TRUE(a.grad().defined());
}

TEST(LayerNorm, PrintsAsLibTorch) {
  EXPECT_EQ(printed(*torch::nn::LayerNorm(std::vector<std::int64_t>{10})),
            "kiln::nn::LayerNorm([10], eps=1e-05, elementwise_affine=true)");
  EXPECT_EQ(printed(*torch::nn::LayerNorm(torch::nn::LayerNormOptions({2, 3}).eps(0.001).elementwise_affine(false))),
            "kiln::nn::LayerNorm([2, 3], eps=0.001, elementwise_affine=false)");
}

TEST(LayerNorm, ShapesThatDoNotFitAreErrorsNamingThem) {
  Tensor x = torch::zeros({2, 5});
  try {
    torch::nn::LayerNorm(std::vector<std::int64_t>{10})(x);
    FAIL() << "no error";
  } catch (const kiln::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[layer_norm]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("normalized_shape=[10]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[2, 5]"), std::string::npos) << e.what();
  }
  // More normalized dims than the input has.
  EXPECT_THROW(torch::layer_norm(torch::zeros({5}), {2, 5}), kiln::ShapeError);
  try {
    torch::layer_norm(x, {5}, torch::ones({4}));
    FAIL() << "no error";
  } catch (const kiln::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("weight of shape normalized_shape=[5], got [4]"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(torch::layer_norm(x, {5}, {}, torch::ones({5, 1})), kiln::ShapeError);
  try {
    torch::layer_norm(x, std::vector<std::int64_t>{});
    FAIL() << "no error";
  } catch (const kiln::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("got []"), std::string::npos) << e.what();
  }
}

}  // namespace

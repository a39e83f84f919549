// A LibTorch program ported by changing the include: only torch:: names.
// It must compile as written and give the hand-computed numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <kiln/torch.h>

namespace {

// The "model": one linear layer, relu, softmax, as a LibTorch user writes it.
torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  namespace F = torch::nn::functional;
  torch::Tensor h = F::linear(x, w, b);
  return torch::softmax(torch::relu(h), /*dim=*/1);
}

TEST(TorchPort, LinearReluSoftmaxMatmulGiveHandComputedValues) {
  torch::Tensor x = torch::tensor({{1.0f, -2.0f, 3.0f}, {0.5f, 0.0f, -1.0f}});
  torch::Tensor w = torch::tensor({{1.0f, 0.0f, 1.0f}, {0.0f, 1.0f, 0.0f}});
  torch::Tensor b = torch::tensor({0.5f, -1.0f});
  ASSERT_EQ(x.dtype(), torch::kFloat32);

  // linear: x @ w^T + b = [[4.5, -3], [0, -1]]
  torch::Tensor h = torch::nn::functional::linear(x, w, b);
  EXPECT_EQ(h.sizes(), torch::IntArrayRef({2, 2}));
  EXPECT_FLOAT_EQ(h.select(0, 0).select(0, 0).item<float>(), 4.5f);
  EXPECT_FLOAT_EQ(h.select(0, 0).select(0, 1).item<float>(), -3.0f);
  EXPECT_FLOAT_EQ(h.select(0, 1).select(0, 0).item<float>(), 0.0f);
  EXPECT_FLOAT_EQ(h.select(0, 1).select(0, 1).item<float>(), -1.0f);

  // relu -> [[4.5, 0], [0, 0]]; softmax rows: [1/(1+e^-4.5), ...] and [0.5, 0.5]
  torch::Tensor p = forward(x, w, b);
  std::vector<float> pv = p.to_vector<float>();
  const float p00 = 1.0f / (1.0f + std::exp(-4.5f));
  EXPECT_NEAR(pv[0], p00, 1e-6);
  EXPECT_NEAR(pv[1], 1 - p00, 1e-6);
  EXPECT_NEAR(pv[2], 0.5f, 1e-6);
  EXPECT_NEAR(pv[3], 0.5f, 1e-6);

  // Gram matrix: x @ x^T = [[14, -2.5], [-2.5, 1.25]], total 10.25
  torch::Tensor g = torch::matmul(x, x.t());
  EXPECT_FLOAT_EQ(g.sum().item<float>(), 10.25f);
  EXPECT_FLOAT_EQ(g.max().item<float>(), 14.0f);
  EXPECT_EQ(g.argmin().item<int64_t>(), 1);
}

TEST(TorchPort, RandomInputsKeepTheInvariantsLibTorchGuarantees) {
  torch::manual_seed(0);
  torch::Tensor x = torch::randn({8, 5});
  torch::Tensor w = torch::randn({3, 5}, torch::kFloat32);
  torch::Tensor y = torch::softmax(torch::relu(torch::nn::functional::linear(x, w)), 1);
  EXPECT_EQ(y.sizes(), torch::IntArrayRef({8, 3}));
  torch::Tensor row_sums = y.sum(1);
  for (float s : row_sums.to_vector<float>()) EXPECT_NEAR(s, 1.0f, 1e-5);
  EXPECT_TRUE((y >= 0).logical_and(y <= 1).sum().item<int64_t>() == y.numel());
}

TEST(TorchPort, InPlaceUpdateLoopLikeAnSgdStep) {
  // w <- w - lr * grad, with a fixed "gradient", as an optimizer loop does.
  torch::Tensor w = torch::ones({3}, torch::TensorOptions().dtype(torch::kFloat32));
  torch::Tensor grad = torch::tensor({1.0f, 2.0f, 4.0f});
  for (int step = 0; step < 4; ++step) w.sub_(grad, 0.125);
  EXPECT_FLOAT_EQ(w.select(0, 0).item<float>(), 0.5f);
  EXPECT_FLOAT_EQ(w.select(0, 1).item<float>(), 0.0f);
  EXPECT_FLOAT_EQ(w.select(0, 2).item<float>(), -1.0f);
}

}  // namespace

// The same training loop on tier 0 (interpreted kernels) and on tier 1 (the
// step compiled by the JIT once hot) gives the same losses and the same
// parameters and running statistics, for each optimizer.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include <kiln/torch.h>

#include "tests/common/small_classifier.h"

namespace {

using torch::Tensor;

using MakeOptimizer = std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<Tensor>)>;

struct Run {
  std::vector<float> losses;
  std::vector<float> state;  // every parameter and buffer at the end, flattened
};

// 40 steps of a classifier from seed 7's weights on a fixed batch.
Run train(bool jit, const MakeOptimizer& make) {
  kiln::jit::set_enabled(jit);
  kiln::jit::set_compile_sync(jit);
  kiln::jit::set_hot_threshold(2);
  torch::manual_seed(7);
  ktest::SmallClassifier net(20, 32, 5);
  Tensor x = torch::randn({16, 20});
  Tensor labels = torch::randint(5, {16});
  auto optimizer = make(net->parameters());
  Run run;
  for (int step = 0; step < 40; ++step) {
    optimizer->zero_grad();
    Tensor loss = torch::nn::functional::cross_entropy(net->forward(x), labels);
    loss.backward();
    optimizer->step();
    run.losses.push_back(loss.item<float>());
  }
  run.state = ktest::trained_state(*net);
  kiln::jit::set_compile_sync(false);
  kiln::jit::set_enabled(false);
  return run;
}

void expect_same_training(const MakeOptimizer& make) {
  const std::uint64_t compiled_before = kiln::stats().jit.group_runs_compiled;
  Run tier0 = train(false, make);
  EXPECT_EQ(kiln::stats().jit.group_runs_compiled, compiled_before) << "tier 0 ran no compiled kernel";
  Run tier1 = train(true, make);
  EXPECT_GT(kiln::stats().jit.group_runs_compiled, compiled_before + 30) << "tier 1 ran the step compiled";
  ASSERT_EQ(tier0.losses.size(), tier1.losses.size());
  for (std::size_t s = 0; s < tier0.losses.size(); ++s)
    EXPECT_NEAR(tier0.losses[s], tier1.losses[s], 1e-4 * (1 + std::fabs(tier0.losses[s]))) << "step " << s;
  EXPECT_LT(tier1.losses.back(), 0.5f * tier1.losses.front()) << "the loop trains";
  ASSERT_EQ(tier0.state.size(), tier1.state.size());
  for (std::size_t k = 0; k < tier0.state.size(); ++k)
    ASSERT_NEAR(tier0.state[k], tier1.state[k], 1e-4 * (1 + std::fabs(tier0.state[k]))) << "state element " << k;
}

TEST(TrainingEquivalence, SgdWithMomentumOnTier0AndTier1) {
  expect_same_training([](std::vector<Tensor> p) {
    return std::make_unique<torch::optim::SGD>(p, torch::optim::SGDOptions(0.05).momentum(0.9));
  });
}

TEST(TrainingEquivalence, AdamOnTier0AndTier1) {
  expect_same_training([](std::vector<Tensor> p) {
    return std::make_unique<torch::optim::Adam>(p, torch::optim::AdamOptions(1e-2));
  });
}

TEST(TrainingEquivalence, AdamWWithAmsgradOnTier0AndTier1) {
  expect_same_training([](std::vector<Tensor> p) {
    return std::make_unique<torch::optim::AdamW>(p, torch::optim::AdamWOptions(1e-2).amsgrad(true));
  });
}

}  // namespace

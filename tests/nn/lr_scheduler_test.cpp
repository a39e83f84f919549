// Learning-rate schedulers: the rates after each step() against PyTorch's
// formulas (LibTorch's C++ StepLR; Python's ExponentialLR and recursive
// CosineAnnealingLR), written out, for every parameter group.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include <kiln/torch.h>

#include "tests/nn/optim_reference.h"

namespace {

using kiln::Tensor;
using optim_reference::expect_value_error;
using optim_reference::param;

// An SGD optimizer with two groups, at learning rates 0.1 and 0.4.
struct TwoGroups {
  Tensor a = param(), b = param();
  torch::optim::SGD opt{groups(), torch::optim::SGDOptions(0.1)};

  std::vector<torch::optim::OptimizerParamGroup> groups() {
    std::vector<torch::optim::OptimizerParamGroup> g;
    g.emplace_back(std::vector<Tensor>{a});
    g.emplace_back(std::vector<Tensor>{b}, std::make_unique<torch::optim::SGDOptions>(0.4));
    return g;
  }
};

// Calls step() as many times as `want` has rows and compares the rates after each call
// (the recursive cosine form rounds differently from the closed form, by ~1e-15).
void expect_sequence(torch::optim::LRScheduler& scheduler, const std::vector<std::vector<double>>& want) {
  for (std::size_t k = 0; k < want.size(); ++k) {
    scheduler.step();
    const std::vector<double> got = scheduler.get_current_lrs();
    ASSERT_EQ(got.size(), want[k].size());
    for (std::size_t g = 0; g < got.size(); ++g)
      EXPECT_NEAR(got[g], want[k][g], 1e-12) << "after step() " << k + 1 << ", group " << g;
  }
}

TEST(LRScheduler, ConstructionLeavesTheRatesAndGetCurrentLrsReadsEveryGroup) {
  TwoGroups t;
  torch::optim::StepLR scheduler(t.opt, 2);
  EXPECT_EQ(scheduler.get_current_lrs(), (std::vector<double>{0.1, 0.4}));
  t.opt.param_groups()[1].options().set_lr(0.3);
  EXPECT_EQ(scheduler.get_current_lrs(), (std::vector<double>{0.1, 0.3}));
}

TEST(LRScheduler, StepLRDecaysAsLibTorchsCppStepLR) {
  // LibTorch's StepLR::get_lrs sees the count before the step: the k-th call
  // of step() gives lr * gamma^floor((k - 1) / step_size).
  TwoGroups t;
  torch::optim::StepLR scheduler(t.opt, 3, 0.5);
  expect_sequence(scheduler, {{0.1, 0.4},
                              {0.1, 0.4},
                              {0.1, 0.4},
                              {0.05, 0.2},
                              {0.05, 0.2},
                              {0.05, 0.2},
                              {0.025, 0.1},
                              {0.025, 0.1},
                              {0.025, 0.1},
                              {0.0125, 0.05},
                              {0.0125, 0.05},
                              {0.0125, 0.05}});
}

TEST(LRScheduler, StepLRDefaultGammaIsATenth) {
  TwoGroups t;
  torch::optim::StepLR scheduler(t.opt, 1);
  expect_sequence(scheduler, {{0.1, 0.4}, {0.01, 0.04}, {0.001, 0.004}});
}

TEST(LRScheduler, ExponentialLRMultipliesEveryStepAsPythons) {
  TwoGroups t;
  torch::optim::ExponentialLR scheduler(t.opt, 0.9);
  std::vector<std::vector<double>> want;
  double a = 0.1, b = 0.4;
  for (int k = 1; k <= 12; ++k) {
    a *= 0.9;
    b *= 0.9;
    want.push_back({a, b});
  }
  EXPECT_NEAR(want[11][0], 0.1 * 0.282429536481, 1e-15);  // 0.9^12
  expect_sequence(scheduler, want);
}

TEST(LRScheduler, CosineAnnealingLRFollowsPyTorchsCurveThroughAndPastTMax) {
  // PyTorch: after k steps, eta_min + (base_lr - eta_min) * (1 + cos(pi k / T_max)) / 2,
  // rising again after T_max.
  TwoGroups t;
  const double eta_min = 0.01;
  torch::optim::CosineAnnealingLR scheduler(t.opt, 10, eta_min);
  std::vector<std::vector<double>> want;
  for (int k = 1; k <= 25; ++k) {
    const double f = (1 + std::cos(std::numbers::pi * k / 10)) / 2;
    want.push_back({eta_min + (0.1 - eta_min) * f, eta_min + (0.4 - eta_min) * f});
  }
  EXPECT_NEAR(want[4][0], 0.055, 1e-15);    // half way: (0.1 + 0.01) / 2
  EXPECT_NEAR(want[9][1], eta_min, 1e-15);  // T_max: eta_min
  EXPECT_NEAR(want[19][0], 0.1, 1e-15);     // 2 T_max: back at the base rate
  expect_sequence(scheduler, want);
}

TEST(LRScheduler, CosineAnnealingLRIsChainableFromARateSetByHand) {
  // Python's recursive form: lr_k = (1 + cos(pi k / T)) / (1 + cos(pi (k - 1) / T)) * (lr_{k-1} - eta_min) + eta_min.
  TwoGroups t;
  torch::optim::CosineAnnealingLR scheduler(t.opt, 8);
  for (int k = 0; k < 3; ++k) scheduler.step();
  t.opt.param_groups()[0].options().set_lr(0.02);
  scheduler.step();
  const double ratio = (1 + std::cos(std::numbers::pi * 4 / 8)) / (1 + std::cos(std::numbers::pi * 3 / 8));
  EXPECT_NEAR(scheduler.get_current_lrs()[0], ratio * 0.02, 1e-15);
  EXPECT_NEAR(scheduler.get_current_lrs()[1], 0.4 * 0.5, 1e-15);
}

// A scheduler that returns one rate for any number of groups.
struct OneRate : torch::optim::LRScheduler {
  using LRScheduler::LRScheduler;
  std::vector<double> get_lrs() override { return {0.5}; }
};

TEST(LRScheduler, BadArgumentsAreValueErrors) {
  TwoGroups t;
  expect_value_error([&] { torch::optim::StepLR(t.opt, 0); }, "[optim::StepLR] step_size must be positive, got 0");
  expect_value_error([&] { torch::optim::CosineAnnealingLR(t.opt, 0); },
                     "[optim::CosineAnnealingLR] T_max must be at least 1, got 0");
  OneRate one(t.opt);
  expect_value_error([&] { one.step(); },
                     "[optim::LRScheduler] number of learning rates (1) not equal to the number of param groups (2)");
  torch::optim::CosineAnnealingLR cosine(t.opt, 5);
  t.opt.add_param_group(torch::optim::OptimizerParamGroup({param()}));
  expect_value_error([&] { cosine.step(); },
                     "[optim::CosineAnnealingLR] the optimizer has 3 param groups but had 2 "
                     "when the scheduler was made");
}

}  // namespace

// Optimizers against their update formulas (LibTorch's, written as plain
// loops) for several steps of a loss whose gradient is p + c.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include <kiln/torch.h>

#include "tests/nn/optim_reference.h"

namespace {

using kiln::Tensor;
using optim_reference::expect_close;
using optim_reference::param;
using optim_reference::run_kiln;
using optim_reference::run_reference;
using optim_reference::Vec;

TEST(Optim, SgdWithMomentumDampeningNesterovAndWeightDecay) {
  for (bool nesterov : {false, true}) {
    SCOPED_TRACE(nesterov ? "nesterov" : "momentum");
    const double lr = 0.1, mom = 0.9, damp = nesterov ? 0 : 0.1, wd = 0.01;
    Tensor p = param();
    torch::optim::SGD opt({p}, torch::optim::SGDOptions(lr).momentum(mom).dampening(damp).weight_decay(wd).nesterov(nesterov));
    Vec buf;
    Vec want = run_reference(6, [&](Vec& x, const Vec& g0) {
      Vec g = g0;
      for (std::size_t i = 0; i < x.size(); ++i) g[i] += wd * x[i];
      if (buf.empty()) buf = g;
      else
        for (std::size_t i = 0; i < x.size(); ++i) buf[i] = mom * buf[i] + (1 - damp) * g[i];
      for (std::size_t i = 0; i < x.size(); ++i) x[i] -= lr * (nesterov ? g[i] + mom * buf[i] : buf[i]);
    });
    expect_close(run_kiln(opt, p, 6), want);
    auto& state = static_cast<torch::optim::SGDParamState&>(*opt.state().at(p.impl().get()));
    expect_close(state.momentum_buffer().to_vector<double>(), buf);
  }
}

TEST(Optim, AdamAdamWAndAmsgrad) {
  for (int variant = 0; variant < 3; ++variant) {
    const bool decoupled = variant == 1, amsgrad = variant == 2;
    SCOPED_TRACE(variant);
    const double lr = 0.05, b1 = 0.8, b2 = 0.95, eps = 1e-6, wd = 0.1;
    Tensor p = param();
    std::unique_ptr<torch::optim::Optimizer> opt;
    if (decoupled)
      opt = std::make_unique<torch::optim::AdamW>(std::vector<Tensor>{p},
                                                  torch::optim::AdamWOptions(lr).betas({b1, b2}).eps(eps).weight_decay(wd));
    else
      opt = std::make_unique<torch::optim::Adam>(
          std::vector<Tensor>{p}, torch::optim::AdamOptions(lr).betas({b1, b2}).eps(eps).weight_decay(wd).amsgrad(amsgrad));
    Vec m(4, 0), v(4, 0), vmax(4, 0);
    int t = 0;
    Vec want = run_reference(7, [&](Vec& x, const Vec& g0) {
      ++t;
      Vec g = g0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (decoupled) x[i] *= 1 - lr * wd;
        else g[i] += wd * x[i];
        m[i] = b1 * m[i] + (1 - b1) * g[i];
        v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
        vmax[i] = std::max(vmax[i], v[i]);
        const double second = amsgrad ? vmax[i] : v[i];
        const double denom = std::sqrt(second) / std::sqrt(1 - std::pow(b2, t)) + eps;
        x[i] -= lr / (1 - std::pow(b1, t)) * m[i] / denom;
      }
    });
    expect_close(run_kiln(*opt, p, 7), want);
  }
}

TEST(Optim, ParameterGroupsHaveTheirOwnOptions) {
  Tensor a = param(), b = param();
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{a});
  groups.emplace_back(std::vector<Tensor>{b}, std::make_unique<torch::optim::SGDOptions>(0.5));
  torch::optim::SGD opt(groups, torch::optim::SGDOptions(0.1));
  EXPECT_EQ(opt.size(), 2u);
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].options().get_lr(), 0.1);
  EXPECT_DOUBLE_EQ(opt.param_groups()[1].options().get_lr(), 0.5);
  (a.sum() + b.sum()).backward();
  opt.step();
  EXPECT_DOUBLE_EQ(a.to_vector<double>()[0], 0.5 - 0.1);
  EXPECT_DOUBLE_EQ(b.to_vector<double>()[0], 0.5 - 0.5);
  opt.param_groups()[0].options().set_lr(0.0);
  EXPECT_THROW(opt.add_param_group(torch::optim::OptimizerParamGroup({a})), kiln::ValueError);
}

TEST(Optim, BadOptionsAndParametersAreRejected) {
  Tensor p = param();
  EXPECT_THROW(torch::optim::SGD({p}, torch::optim::SGDOptions(-1)), kiln::ValueError);
  EXPECT_THROW(torch::optim::SGD({p}, torch::optim::SGDOptions(0.1).nesterov(true)), kiln::ValueError);
  EXPECT_THROW(torch::optim::Adam({p}, torch::optim::AdamOptions(0.1).betas({1.0, 0.9})), kiln::ValueError);
  EXPECT_THROW(torch::optim::Adam({p * 2}), kiln::ValueError);  // not a leaf
}

TEST(Optim, AStepTrainsAModuleAndJoinsTheCompiledSegment) {
  // A linear regression: loss falls, and on tier 1 the whole step (forward,
  // backward, update) runs compiled once hot.
  kiln::jit::set_enabled(true);
  kiln::jit::set_compile_sync(true);
  kiln::jit::set_hot_threshold(2);
  torch::manual_seed(1);
  torch::nn::Linear fc(3, 1);
  torch::optim::SGD opt(fc->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  Tensor x = torch::randn({32, 3});
  Tensor y = torch::matmul(x, torch::tensor({1.5, -2.0, 0.5}).reshape({3, 1})) + 0.25;
  float first = 0, last = 0;
  std::uint64_t compiled_before_last = 0;
  for (int step = 0; step < 60; ++step) {
    compiled_before_last = kiln::stats().jit.group_runs_compiled;
    opt.zero_grad();
    Tensor loss = torch::nn::functional::mse_loss(fc(x), y);
    loss.backward();
    opt.step();
    (step == 0 ? first : last) = loss.item<float>();
  }
  EXPECT_GT(kiln::stats().jit.group_runs_compiled, compiled_before_last) << "the last step ran compiled kernels";
  kiln::jit::set_compile_sync(false);
  kiln::jit::set_enabled(false);
  EXPECT_LT(last, first * 1e-2);
}

}  // namespace

// RMSprop and Adagrad against LibTorch's update formulas written as plain
// loops, with every option on and off, per-group options, state and
// validation messages.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <kiln/torch.h>

#include "tests/nn/optim_reference.h"

namespace {

using kiln::Tensor;
using optim_reference::expect_close;
using optim_reference::expect_value_error;
using optim_reference::param;
using optim_reference::run_kiln;
using optim_reference::run_reference;
using optim_reference::Vec;

// LibTorch's RMSprop step on plain vectors (buffers start at zero).
struct RmspropReference {
  double lr, alpha, eps, wd, momentum;
  bool centered;
  Vec square_avg = Vec(4, 0), grad_avg = Vec(4, 0), buf = Vec(4, 0);

  void operator()(Vec& x, const Vec& g0) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double g = g0[i] + wd * x[i];
      square_avg[i] = alpha * square_avg[i] + (1 - alpha) * g * g;
      double avg = square_avg[i];
      if (centered) {
        grad_avg[i] = alpha * grad_avg[i] + (1 - alpha) * g;
        avg -= grad_avg[i] * grad_avg[i];
      }
      avg = std::sqrt(avg) + eps;
      if (momentum > 0) {
        buf[i] = momentum * buf[i] + g / avg;
        x[i] -= lr * buf[i];
      } else {
        x[i] -= lr * g / avg;
      }
    }
  }
};

// LibTorch's Adagrad step on plain vectors.
struct AdagradReference {
  double lr, lr_decay, wd, init, eps;
  Vec sum = Vec(4, init);
  int step = 0;

  void operator()(Vec& x, const Vec& g0) {
    ++step;
    const double clr = lr / (1 + (step - 1) * lr_decay);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double g = g0[i] + wd * x[i];
      sum[i] += g * g;
      x[i] -= clr * g / (std::sqrt(sum[i]) + eps);
    }
  }
};

TEST(OptimRMSprop, DefaultsAreLibTorchs) {
  torch::optim::RMSpropOptions o;
  EXPECT_EQ(o.lr(), 1e-2);
  EXPECT_EQ(o.alpha(), 0.99);
  EXPECT_EQ(o.eps(), 1e-8);
  EXPECT_EQ(o.weight_decay(), 0.0);
  EXPECT_EQ(o.momentum(), 0.0);
  EXPECT_FALSE(o.centered());
}

TEST(OptimRMSprop, MatchesTheFormulaWithMomentumCenteringAndWeightDecay) {
  for (double momentum : {0.0, 0.9})
    for (bool centered : {false, true})
      for (double wd : {0.0, 0.1}) {
        SCOPED_TRACE(::testing::Message() << "momentum " << momentum << " centered " << centered << " wd " << wd);
        const double lr = 0.01, alpha = 0.9, eps = 1e-6;
        Tensor p = param();
        torch::optim::RMSprop opt({p}, torch::optim::RMSpropOptions(lr)
                                           .alpha(alpha)
                                           .eps(eps)
                                           .weight_decay(wd)
                                           .momentum(momentum)
                                           .centered(centered));
        RmspropReference ref{lr, alpha, eps, wd, momentum, centered};
        Vec want = run_reference(7, std::ref(ref));
        expect_close(run_kiln(opt, p, 7), want);
        auto& state = static_cast<torch::optim::RMSpropParamState&>(*opt.state().at(p.impl().get()));
        EXPECT_EQ(state.step(), 7);
        expect_close(state.square_avg().to_vector<double>(), ref.square_avg);
        EXPECT_EQ(state.momentum_buffer().defined(), momentum > 0);
        if (momentum > 0) expect_close(state.momentum_buffer().to_vector<double>(), ref.buf);
        EXPECT_EQ(state.grad_avg().defined(), centered);
        if (centered) expect_close(state.grad_avg().to_vector<double>(), ref.grad_avg);
      }
}

TEST(OptimRMSprop, ParameterGroupsHaveTheirOwnOptionsAndGradlessParametersAreSkipped) {
  Tensor a = param(), b = param(), idle = param();
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{a, idle});
  groups.emplace_back(std::vector<Tensor>{b},
                      std::make_unique<torch::optim::RMSpropOptions>(
                          torch::optim::RMSpropOptions(0.05).alpha(0.8).momentum(0.5).centered(true)));
  torch::optim::RMSprop opt(groups, torch::optim::RMSpropOptions(0.02));
  Tensor c = torch::tensor(optim_reference::kC, torch::kFloat64);
  for (int s = 0; s < 5; ++s) {
    opt.zero_grad();
    ((a * a).sum() * 0.5 + (a * c).sum() + (b * b).sum() * 0.5 + (b * c).sum()).backward();
    opt.step();
  }
  RmspropReference ref_a{0.02, 0.99, 1e-8, 0, 0, false};
  RmspropReference ref_b{0.05, 0.8, 1e-8, 0, 0.5, true};
  expect_close(a.to_vector<double>(), run_reference(5, std::ref(ref_a)));
  expect_close(b.to_vector<double>(), run_reference(5, std::ref(ref_b)));
  expect_close(idle.to_vector<double>(), optim_reference::kStart);
  EXPECT_EQ(opt.state().count(idle.impl().get()), 0u);
}

TEST(OptimRMSprop, MomentumAndCenteringSwitchedOnLaterStartFromZeroBuffers) {
  Tensor p = param();
  torch::optim::RMSprop opt({p}, torch::optim::RMSpropOptions(0.01).alpha(0.9));
  RmspropReference ref{0.01, 0.9, 1e-8, 0, 0, false};
  Vec want = run_reference(2, std::ref(ref));
  expect_close(run_kiln(opt, p, 2), want);
  auto& options = static_cast<torch::optim::RMSpropOptions&>(opt.param_groups()[0].options());
  options.momentum(0.8).centered(true);
  ref.momentum = 0.8;
  ref.centered = true;
  // The reference continues from its state after two steps.
  Vec x = want;
  for (int s = 0; s < 3; ++s) {
    Vec g(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) g[i] = x[i] + optim_reference::kC[i];
    ref(x, g);
  }
  expect_close(run_kiln(opt, p, 3), x);
}

TEST(OptimRMSprop, BadOptionsAreValueErrorsWithLibTorchsMessages) {
  using torch::optim::RMSpropOptions;
  Tensor p = param();
  expect_value_error([&] { torch::optim::RMSprop({p}, RMSpropOptions(-0.5)); },
                     "[optim::RMSprop] invalid learning rate: -0.5");
  expect_value_error([&] { torch::optim::RMSprop({p}, RMSpropOptions().eps(-1)); },
                     "[optim::RMSprop] invalid epsilon value: -1");
  expect_value_error([&] { torch::optim::RMSprop({p}, RMSpropOptions().momentum(-0.25)); },
                     "[optim::RMSprop] invalid momentum value: -0.25");
  expect_value_error([&] { torch::optim::RMSprop({p}, RMSpropOptions().weight_decay(-2)); },
                     "[optim::RMSprop] invalid weight_decay value: -2");
  expect_value_error([&] { torch::optim::RMSprop({p}, RMSpropOptions().alpha(-0.5)); },
                     "[optim::RMSprop] invalid alpha value: -0.5");
  // A group's options are checked when the optimizer steps.
  torch::optim::RMSprop opt({p});
  opt.param_groups()[0].options().set_lr(-1);
  (p * p).sum().backward();
  expect_value_error([&] { opt.step(); }, "[optim::RMSprop] invalid learning rate: -1");
}

TEST(OptimAdagrad, DefaultsAreLibTorchs) {
  torch::optim::AdagradOptions o;
  EXPECT_EQ(o.lr(), 1e-2);
  EXPECT_EQ(o.lr_decay(), 0.0);
  EXPECT_EQ(o.weight_decay(), 0.0);
  EXPECT_EQ(o.initial_accumulator_value(), 0.0);
  EXPECT_EQ(o.eps(), 1e-10);
}

TEST(OptimAdagrad, MatchesTheFormulaWithLrDecayWeightDecayAndInitialAccumulator) {
  for (double lr_decay : {0.0, 0.1})
    for (double wd : {0.0, 0.05})
      for (double init : {0.0, 0.3}) {
        SCOPED_TRACE(::testing::Message() << "lr_decay " << lr_decay << " wd " << wd << " init " << init);
        const double lr = 0.1, eps = 1e-10;
        Tensor p = param();
        torch::optim::Adagrad opt({p}, torch::optim::AdagradOptions(lr)
                                           .lr_decay(lr_decay)
                                           .weight_decay(wd)
                                           .initial_accumulator_value(init)
                                           .eps(eps));
        // As LibTorch, the state exists from construction: step 0, sum = init.
        auto& state = static_cast<torch::optim::AdagradParamState&>(*opt.state().at(p.impl().get()));
        EXPECT_EQ(state.step(), 0);
        expect_close(state.sum().to_vector<double>(), Vec(4, init));
        AdagradReference ref{lr, lr_decay, wd, init, eps};
        Vec want = run_reference(6, std::ref(ref));
        expect_close(run_kiln(opt, p, 6), want);
        EXPECT_EQ(state.step(), 6);
        expect_close(state.sum().to_vector<double>(), ref.sum);
      }
}

TEST(OptimAdagrad, ParameterGroupsHaveTheirOwnOptionsIncludingAddedGroups) {
  Tensor a = param(), b = param(), late = param();
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{a});
  groups.emplace_back(std::vector<Tensor>{b}, std::make_unique<torch::optim::AdagradOptions>(
                                                  torch::optim::AdagradOptions(0.3).initial_accumulator_value(0.5)));
  torch::optim::Adagrad opt(groups, torch::optim::AdagradOptions(0.1).lr_decay(0.2));
  opt.add_param_group(torch::optim::OptimizerParamGroup(
      {late}, std::make_unique<torch::optim::AdagradOptions>(torch::optim::AdagradOptions(0.2).weight_decay(0.1))));
  Tensor c = torch::tensor(optim_reference::kC, torch::kFloat64);
  for (int s = 0; s < 5; ++s) {
    opt.zero_grad();
    auto loss = [&](const Tensor& p) { return (p * p).sum() * 0.5 + (p * c).sum(); };
    (loss(a) + loss(b) + loss(late)).backward();
    opt.step();
  }
  AdagradReference ref_a{0.1, 0.2, 0, 0, 1e-10};
  AdagradReference ref_b{0.3, 0, 0, 0.5, 1e-10};
  AdagradReference ref_late{0.2, 0, 0.1, 0, 1e-10};
  expect_close(a.to_vector<double>(), run_reference(5, std::ref(ref_a)));
  expect_close(b.to_vector<double>(), run_reference(5, std::ref(ref_b)));
  expect_close(late.to_vector<double>(), run_reference(5, std::ref(ref_late)));
}

TEST(OptimAdagrad, BadOptionsAreValueErrorsWithLibTorchsMessages) {
  using torch::optim::AdagradOptions;
  Tensor p = param();
  expect_value_error([&] { torch::optim::Adagrad({p}, AdagradOptions(-0.5)); },
                     "[optim::Adagrad] invalid learning rate: -0.5");
  expect_value_error([&] { torch::optim::Adagrad({p}, AdagradOptions().lr_decay(-1)); },
                     "[optim::Adagrad] invalid lr_decay value: -1");
  expect_value_error([&] { torch::optim::Adagrad({p}, AdagradOptions().weight_decay(-2)); },
                     "[optim::Adagrad] invalid weight_decay value: -2");
  expect_value_error([&] { torch::optim::Adagrad({p}, AdagradOptions().initial_accumulator_value(-0.25)); },
                     "[optim::Adagrad] initial accumulator value must be >= 0, but got -0.25");
  expect_value_error([&] { torch::optim::Adagrad({p}, AdagradOptions().eps(-1)); },
                     "[optim::Adagrad] invalid epsilon value: -1");
}

}  // namespace

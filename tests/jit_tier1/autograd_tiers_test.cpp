// Forward and backward on tier 0 and tier 1: the gradient ops are recorded
// like any other op, so the compiled tier must give the same gradients, and
// a training step's segments must really run compiled code.
#include <gtest/gtest.h>

#include <string>

#include "tests/jit_tier1/tiers.h"

namespace {

using kiln::Tensor;
using tiers::tiers_agree;

// A fresh leaf per run (gradients accumulate into leaves), same values each time.
Tensor leaf(std::vector<std::int64_t> shape, std::uint64_t seed, kiln::ScalarType t, double scale = 1) {
  kiln::manual_seed(seed);
  Tensor x;
  {
    kiln::NoGradGuard no_grad;
    x = (kiln::randn(shape, kiln::kFloat64) * scale).to(t);
  }
  return x.requires_grad_(true);
}

std::vector<Tensor> grads_of(const std::vector<Tensor>& leaves) {
  std::vector<Tensor> out;
  for (const Tensor& l : leaves) out.push_back(l.grad());
  return out;
}

const kiln::ScalarType kFloats[] = {kiln::kFloat32, kiln::kFloat64};

TEST(Tier1Autograd, UnaryChainBackward) {
  for (kiln::ScalarType t : kFloats) {
    SCOPED_TRACE(kiln::to_string(t));
    EXPECT_TRUE(tiers_agree([&] {
      Tensor x = leaf({1000}, 1, t, 0.5);
      Tensor y = x.exp().tanh().sigmoid().sin().cos() + x.abs().log1p() + (x * x + 1).sqrt() + (x * x + 1).rsqrt() +
                 kiln::gelu(x) + kiln::gelu(x, "tanh") + x.relu() - x.neg().erf() + (x * x + 0.5).log();
      y.backward(kiln::ones_like(y));
      return std::vector<Tensor>{y, x.grad()};
    }));
  }
}

TEST(Tier1Autograd, BinaryOpsWithBroadcastingBackward) {
  for (kiln::ScalarType t : kFloats) {
    SCOPED_TRACE(kiln::to_string(t));
    EXPECT_TRUE(tiers_agree([&] {
      Tensor a = leaf({6, 1, 5}, 2, t), b = leaf({4, 1}, 3, t);
      Tensor p = a.abs() + 0.5, q = b * b + 0.5;
      Tensor y = a * b + a / q - b + kiln::pow(p, q) + kiln::maximum(a, b) - kiln::minimum(a, b) +
                 kiln::where(a > b, a, b * 2);
      y.sum().backward();
      return grads_of({a, b});
    }));
  }
}

TEST(Tier1Autograd, ReductionsAndCompositesBackward) {
  for (kiln::ScalarType t : kFloats) {
    SCOPED_TRACE(kiln::to_string(t));
    EXPECT_TRUE(tiers_agree([&] {
      Tensor x = leaf({8, 33}, 4, t);
      Tensor y = x.sum({1}) + x.mean({1}) + x.amax({1}) + x.amin({1}) + x.var({1}) + x.softmax(1).select(1, 3) +
                 x.log_softmax(1).mean({1}) + x.logsumexp({1}) + (x.abs() + 0.5).prod({1}).log();
      y.backward(kiln::ones_like(y) * 0.5);
      return std::vector<Tensor>{y, x.grad()};
    }));
  }
}

TEST(Tier1Autograd, MlpTrainingStepBackward) {
  // The step a classifier repeats: linear, relu, linear, log_softmax, the
  // picked log-probabilities; matmul gradients with their epilogues.
  for (kiln::ScalarType t : kFloats) {
    SCOPED_TRACE(kiln::to_string(t));
    Tensor x = kiln::randn({16, 32}, kiln::TensorOptions(t));
    Tensor target = kiln::randint(0, 10, {16, 1});
    EXPECT_TRUE(tiers_agree(
        [&] {
          Tensor w1 = leaf({24, 32}, 5, t, 0.2), b1 = leaf({24}, 6, t, 0.1);
          Tensor w2 = leaf({10, 24}, 7, t, 0.2), b2 = leaf({10}, 8, t, 0.1);
          Tensor h = kiln::nn::functional::linear(x, w1, b1).relu();
          Tensor logp = kiln::nn::functional::linear(h, w2, b2).log_softmax(1);
          Tensor loss = -logp.gather(1, target).mean();
          loss.backward();
          return std::vector<Tensor>{loss, w1.grad(), b1.grad(), w2.grad(), b2.grad()};
        },
        t == kiln::kFloat32 ? 1e-4 : 1e-5));
  }
}

TEST(Tier1Autograd, ViewsAndInPlaceBackward) {
  EXPECT_TRUE(tiers_agree([&] {
    Tensor x = leaf({6, 8}, 9, kiln::kFloat32), w = leaf({3, 4}, 10, kiln::kFloat32);
    Tensor y = x * 1.0;
    y.narrow(0, 1, 3).slice(1, 0, 8, 2).mul_(w);
    y.select(0, 5).add_(2).relu_();
    Tensor z = y.t().reshape({4, 12}).unsqueeze(0).expand({2, 4, 12}).permute({2, 0, 1}).squeeze();
    (z * z).sum().backward();
    return grads_of({x, w});
  }));
}

TEST(Tier1Autograd, SecondOrderGradientsAgree) {
  EXPECT_TRUE(tiers_agree([&] {
    Tensor x = leaf({257}, 11, kiln::kFloat64);
    Tensor y = (x.tanh() * x * x).sum();
    Tensor g = kiln::autograd::grad({y}, {x}, {}, std::nullopt, true)[0];
    g.sum().backward();
    return std::vector<Tensor>{g, x.grad()};
  }));
}

TEST(Tier1Autograd, ElementwiseChainBackwardCompilesToFewKernels) {
  // Forward and backward of a 10-op chain, recorded in one segment: the JIT
  // fuses the chain's gradient ops with the forward into few kernels.
  tiers::Tier1Scope scope;
  auto step = [] {
    Tensor x = leaf({4096}, 12, kiln::kFloat32);
    Tensor y = ((((x * 1.5 + 0.5).tanh() * 2).sigmoid() - 0.25).exp() * x).relu().sqrt();
    y.sum().backward();
    kiln::sync();
    return x;
  };
  step();
  kiln::reset_stats();
  Tensor x = step();
  kiln::Stats s = kiln::stats();
  ASSERT_FALSE(s.top_keys.empty());
  const kiln::KeyStats* step_key = nullptr;
  for (const kiln::KeyStats& k : s.top_keys)
    if (!step_key || k.ops > step_key->ops) step_key = &k;
  EXPECT_GT(step_key->runs_tier1, 0u);
  EXPECT_LE(step_key->kernels, 3u) << step_key->ops << " ops";
}

TEST(Tier1Autograd, CompiledFunctionThatCallsBackwardAccumulatesLikeEager) {
  tiers::Tier1Scope scope;
  auto body = [](const Tensor& x, const Tensor& w) {
    Tensor loss = (x * w).tanh().sum();
    loss.backward();
    return loss;
  };
  auto step = kiln::compile(body);
  Tensor x = kiln::arange(4, kiln::kFloat32) * 0.25;
  Tensor w_compiled = kiln::full({4}, 0.5, kiln::requires_grad());
  Tensor w_eager = kiln::full({4}, 0.5, kiln::requires_grad());
  for (int i = 0; i < 3; ++i) {
    EXPECT_FLOAT_EQ(step(x, w_compiled).item<float>(), body(x, w_eager).item<float>());
    EXPECT_EQ(w_compiled.grad().to_vector<float>(), w_eager.grad().to_vector<float>()) << "step " << i;
  }
}

TEST(Tier1Autograd, TrainingStepsOfAnotherBatchSizeReuseTheShapeFamilysKernels) {
  // An epoch's last batch is smaller, and differs per epoch: after the
  // first one, forward and backward of a new size run the kernels compiled
  // with a dynamic batch dim, compiling nothing.
  tiers::Tier1Scope scope(2);
  Tensor w1 = leaf({16, 8}, 13, kiln::kFloat32, 0.3), b1 = leaf({16}, 14, kiln::kFloat32);
  Tensor w2 = leaf({4, 16}, 15, kiln::kFloat32, 0.3);
  auto step = [&](std::int64_t batch) {
    Tensor x = kiln::randn({batch, 8});
    Tensor y = kiln::nn::functional::linear(kiln::nn::functional::linear(x, w1, b1).tanh(), w2);
    (y * y).mean().backward();
    kiln::sync();
  };
  for (int epoch = 0; epoch < 4; ++epoch) {
    for (int i = 0; i < 4; ++i) step(32);
    const kiln::JitStats before = kiln::stats().jit;
    step(13 + epoch);
    const kiln::JitStats after = kiln::stats().jit;
    if (epoch == 0) continue;
    EXPECT_EQ(after.compiles_requested, before.compiles_requested) << "epoch " << epoch;
    EXPECT_GT(after.group_runs_compiled, before.group_runs_compiled) << "epoch " << epoch;
    EXPECT_EQ(after.group_runs_interpreted, before.group_runs_interpreted) << "epoch " << epoch;
  }
}

}  // namespace

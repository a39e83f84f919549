// A training loop under memory budgets below its unconstrained peak: values
// the budget cannot hold are evicted and recomputed, and the losses and the
// trained parameters are bit for bit those of the unconstrained run (tier 0:
// the recomputation runs the same deterministic kernels).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <kiln/torch.h>

#include "tests/common/small_classifier.h"

namespace {

using torch::Tensor;

// Pre-norm residual blocks: x + W2 relu(W1 layer_norm(x)).
struct ResidualStackImpl : torch::nn::Module {
  ResidualStackImpl(int blocks, std::int64_t width, std::int64_t hidden, std::int64_t classes) {
    for (int b = 0; b < blocks; ++b) {
      norms.push_back(register_module("norm" + std::to_string(b), torch::nn::LayerNorm(torch::nn::LayerNormOptions({width}))));
      ups.push_back(register_module("up" + std::to_string(b), torch::nn::Linear(width, hidden)));
      downs.push_back(register_module("down" + std::to_string(b), torch::nn::Linear(hidden, width)));
    }
    head = register_module("head", torch::nn::Linear(width, classes));
  }
  Tensor forward(Tensor x) {
    for (std::size_t b = 0; b < ups.size(); ++b) x = x + downs[b](torch::relu(ups[b](norms[b](x))));
    return head(x);
  }
  std::vector<torch::nn::LayerNorm> norms;
  std::vector<torch::nn::Linear> ups, downs;
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(ResidualStack);

struct TrainingRun {
  std::vector<float> losses;
  std::vector<float> state;
  std::uint64_t peak = 0;
  std::uint64_t evictions = 0, recomputes = 0;
};

// The models: pre-norm residual blocks on a batch whose activations
// outweigh the parameters, gradients and momentum (as in the models DTR is
// for), and an MLP whose parameters outweigh its activations (there, what
// the optimizer's in-place writes of the parameters cost decides whether it
// fits a budget of its own peak).
enum class Model { kResidualStack, kMlp };

struct Net {
  std::function<Tensor(const Tensor&)> forward;
  std::shared_ptr<torch::nn::Module> module;
};

Net make(Model model) {
  if (model == Model::kMlp) {
    torch::nn::Sequential mlp(torch::nn::Linear(784, 512), torch::nn::ReLU(), torch::nn::Linear(512, 512),
                              torch::nn::ReLU(), torch::nn::Linear(512, 10));
    return {[mlp](const Tensor& x) mutable { return mlp->forward(x); }, mlp.ptr()};
  }
  ResidualStack net(8, 64, 256, 10);
  return {[net](const Tensor& x) mutable { return net->forward(x); }, net.ptr()};
}

// Three SGD steps from seed 3's weights; `fraction` of `peak` as the budget
// (0: none).
TrainingRun train(double fraction, std::uint64_t peak, Model model = Model::kResidualStack) {
  torch::manual_seed(3);
  Net net = make(model);
  const std::int64_t batch = model == Model::kMlp ? 128 : 2048;
  Tensor x = torch::randn({batch, model == Model::kMlp ? 784 : 64});
  Tensor labels = torch::randint(10, {batch});
  torch::optim::SGD optimizer(net.module->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  kiln::sync();
  const kiln::Stats before = kiln::stats();
  kiln::reset_stats();
  if (fraction > 0) kiln::set_memory_budget(static_cast<std::size_t>(fraction * static_cast<double>(peak)));
  TrainingRun run;
  for (int step = 0; step < 3; ++step) {
    optimizer.zero_grad();
    Tensor loss = torch::nn::functional::cross_entropy(net.forward(x), labels);
    loss.backward();
    optimizer.step();
    run.losses.push_back(loss.item<float>());
  }
  run.state = ktest::trained_state(*net.module);
  const kiln::Stats after = kiln::stats();
  kiln::set_memory_budget(0);
  run.peak = after.peak_bytes;
  run.evictions = after.evictions - before.evictions;
  run.recomputes = after.recomputes - before.recomputes;
  return run;
}

// Prints what a bounded run did, and checks it kept to `fraction` of the
// unconstrained peak.
void expect_peak_within_budget(const TrainingRun& bounded, const TrainingRun& unconstrained, double fraction) {
  std::printf("budget %.0f%%: peak %.2f MiB of %.2f, %llu evictions, %llu recomputes\n", 100 * fraction,
              static_cast<double>(bounded.peak) / (1 << 20), static_cast<double>(unconstrained.peak) / (1 << 20),
              static_cast<unsigned long long>(bounded.evictions), static_cast<unsigned long long>(bounded.recomputes));
  EXPECT_LE(bounded.peak, static_cast<std::uint64_t>(fraction * static_cast<double>(unconstrained.peak)) + 4096);
}

class TrainingUnderBudget : public ::testing::TestWithParam<double> {
 protected:
  void SetUp() override { kiln::jit::set_enabled(false); }
  void TearDown() override {
    kiln::set_memory_budget(0);
    kiln::jit::set_enabled(true);
  }
};

TEST_P(TrainingUnderBudget, GivesTheUnconstrainedLossesAndWeightsBitForBit) {
  const TrainingRun unconstrained = train(0, 0);
  const TrainingRun bounded = train(GetParam(), unconstrained.peak);
  expect_peak_within_budget(bounded, unconstrained, GetParam());
  if (GetParam() < 1) {
    EXPECT_GT(bounded.evictions, 0u);
    EXPECT_GT(bounded.recomputes, 0u);
  }
  EXPECT_EQ(bounded.losses, unconstrained.losses);
  ASSERT_EQ(bounded.state.size(), unconstrained.state.size());
  for (std::size_t k = 0; k < unconstrained.state.size(); ++k) ASSERT_EQ(bounded.state[k], unconstrained.state[k]) << "element " << k;
}

INSTANTIATE_TEST_SUITE_P(Budgets, TrainingUnderBudget, ::testing::Values(1.0, 0.7, 0.5, 0.35));

// The MLP and a batch on tier 0, under a budget far above what it needs
// (values made from here keep recipes) until a test lowers it.
struct MlpUnderBudget {
  MlpUnderBudget() {
    kiln::jit::set_enabled(false);
    torch::manual_seed(3);
    net = make(Model::kMlp);
    x = torch::randn({128, 784});
    labels = torch::randint(10, {128});
    kiln::set_memory_budget(std::size_t{1} << 30);
  }
  ~MlpUnderBudget() {
    kiln::set_memory_budget(0);
    kiln::jit::set_enabled(true);
  }
  void backward() { torch::nn::functional::cross_entropy(net.forward(x), labels).backward(); }
  // Runs `work` under a budget of 4 KiB above what is live, expecting
  // kiln::OutOfMemory with `reason` among what stays.
  static void expect_out_of_memory_keeping(const std::function<void()>& work, const std::string& reason) {
    kiln::set_memory_budget(kiln::stats().live_bytes + 4096);
    try {
      work();
      ADD_FAILURE() << "expected kiln::OutOfMemory";
    } catch (const kiln::OutOfMemory& e) {
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  }
  Net net;
  Tensor x, labels;
};

// Optimizer state (here SGD's momentum, first made by cloning a gradient)
// is never evicted: below what a step needs, the report says it stays as
// optimizer state.
TEST(OptimizerStateUnderBudget, IsNeverEvicted) {
  MlpUnderBudget mlp;
  torch::optim::SGD optimizer(mlp.net.module->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  auto step = [&] {
    optimizer.zero_grad();
    mlp.backward();
    optimizer.step();
    kiln::sync();
  };
  step();
  MlpUnderBudget::expect_out_of_memory_keeping(step, "optimizer state");
}

// A gradient accumulated into .grad is a leaf the optimizer reads: never
// evicted. Evicted, its recipe would keep the backward pass recomputable
// and make the optimizer copy every parameter it writes. Evicting the
// gradients (2.6 MiB) would make room for the 1 MiB asked here.
TEST(GradientsUnderBudget, AreNeverEvicted) {
  MlpUnderBudget mlp;
  mlp.backward();
  kiln::sync();
  MlpUnderBudget::expect_out_of_memory_keeping([] { torch::ones({512, 512}).sum().item<float>(); },
                                               "a gradient (.grad)");
}

// The MLP at its own peak. Each parameter the optimizer writes was read by
// activations evicted since, which the gradients' recipes hold: those
// recipes go instead of a copy of the parameter (which would not fit).
TEST(TrainingAtItsPeak, AnMlpWhoseParametersOutweighItsActivationsFits) {
  kiln::jit::set_enabled(false);
  const TrainingRun unconstrained = train(0, 0, Model::kMlp);
  const TrainingRun bounded = train(1.0, unconstrained.peak, Model::kMlp);
  kiln::set_memory_budget(0);
  kiln::jit::set_enabled(true);
  expect_peak_within_budget(bounded, unconstrained, 1.0);
  EXPECT_EQ(bounded.losses, unconstrained.losses);
  EXPECT_EQ(bounded.state, unconstrained.state);
}

// With the JIT on (every segment compiled on its first run), values that
// compiled kernels made, or fused away, are recomputed on tier 0: equal
// within the two tiers' tolerance, not bit for bit.
class TrainingUnderBudgetOnTier1 : public ::testing::TestWithParam<double> {
 protected:
  void SetUp() override {
    kiln::jit::set_compile_sync(true);
    kiln::jit::set_hot_threshold(1);
  }
  void TearDown() override {
    kiln::set_memory_budget(0);
    kiln::jit::set_compile_sync(false);
    kiln::jit::set_hot_threshold(2);
  }
};

TEST_P(TrainingUnderBudgetOnTier1, GivesTheUnconstrainedLossesAndWeights) {
  const TrainingRun unconstrained = train(0, 0);
  const TrainingRun bounded = train(GetParam(), unconstrained.peak);
  expect_peak_within_budget(bounded, unconstrained, GetParam());
  EXPECT_GT(bounded.recomputes, 0u);
  ASSERT_EQ(bounded.losses.size(), unconstrained.losses.size());
  for (std::size_t s = 0; s < bounded.losses.size(); ++s)
    EXPECT_NEAR(bounded.losses[s], unconstrained.losses[s], 1e-4 * std::fabs(unconstrained.losses[s])) << "step " << s;
  ASSERT_EQ(bounded.state.size(), unconstrained.state.size());
  for (std::size_t k = 0; k < unconstrained.state.size(); ++k)
    ASSERT_NEAR(bounded.state[k], unconstrained.state[k], 1e-4 * (1 + std::fabs(unconstrained.state[k]))) << k;
}

INSTANTIATE_TEST_SUITE_P(Budgets, TrainingUnderBudgetOnTier1, ::testing::Values(0.7, 0.5, 0.35));

}  // namespace

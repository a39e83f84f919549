// kiln::compile of a training step that captures its model and optimizer:
// parameters, batch-norm statistics and momentum buffers are the program's
// state, updated in place by every replay, and the replayed loop gives what
// the same loop gives uncompiled. Steps whose numbers change every call
// (Adam) keep running their body; a change of the optimizer's options or of
// its state retires the program. The body counts its runs, so every test
// sees which path each call took.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <kiln/torch.h>

#include "jit/tier1/config.h"
#include "tests/common/small_classifier.h"

namespace {

using torch::Tensor;
namespace F = torch::nn::functional;

class CompileState : public ::testing::Test {
 protected:
  void SetUp() override {
    kiln::jit::set_enabled(true);
    kiln::jit::set_hot_threshold(1000);  // nothing compiles on the implicit path
  }
  void TearDown() override { kiln::jit::set_enabled(false); }
};

using MakeOptimizer = std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<Tensor>)>;

MakeOptimizer sgd(double lr) {
  return [lr](std::vector<Tensor> p) {
    return std::make_unique<torch::optim::SGD>(p, torch::optim::SGDOptions(lr).momentum(0.9));
  };
}

// A model, its optimizer and a batch, from a fixed seed.
struct Trainer {
  explicit Trainer(const MakeOptimizer& make) {
    torch::manual_seed(3);
    net = ktest::SmallClassifier(8, 16, 3);
    x = torch::randn({12, 8});
    y = torch::randint(3, {12});
    optimizer = make(net->parameters());
  }
  float step() {
    optimizer->zero_grad();
    Tensor loss = F::cross_entropy(net->forward(x), y);
    loss.backward();
    optimizer->step();
    return loss.item<float>();
  }
  std::vector<float> state() const { return ktest::trained_state(*net); }
  std::vector<float> grads() const {
    std::vector<float> out;
    for (const Tensor& p : net->parameters()) {
      std::vector<float> v = p.grad().contiguous().to_vector<float>();
      out.insert(out.end(), v.begin(), v.end());
    }
    return out;
  }
  ktest::SmallClassifier net{nullptr};
  Tensor x, y;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
};

void expect_near(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << what << " element " << i;
}

// The same loop twice from the same seed: plainly, and through the step as
// a kiln::compile'd function of the batch (counting its body's runs).
// `between(s, trainer)` runs on both before step s. Every loss, and at the
// end the parameters and running statistics, must agree.
struct Alongside {
  explicit Alongside(const MakeOptimizer& make) : eager(make), compiled(make) {}

  void train(int steps, const std::function<void(int, Trainer&)>& between = {}) {
    Trainer& t = compiled;
    int& runs = body_runs;
    auto step = kiln::compile([&t, &runs](const Tensor& x, const Tensor& y) {
      ++runs;
      t.optimizer->zero_grad();
      Tensor loss = F::cross_entropy(t.net->forward(x), y);
      loss.backward();
      t.optimizer->step();
      return loss;
    });
    for (int s = 0; s < steps; ++s) {
      if (between)
        for (Trainer* each : {&eager, &compiled}) between(s, *each);
      EXPECT_NEAR(step(compiled.x, compiled.y).item<float>(), eager.step(), 1e-5) << "step " << s;
    }
    expect_near(compiled.state(), eager.state(), "parameters and running statistics");
  }

  Trainer eager, compiled;
  int body_runs = 0;
};

TEST_F(CompileState, ACapturedModelAndOptimizerAreUpdatedInPlaceByReplays) {
  Alongside run(sgd(0.05));
  run.train(20);
  // The first call makes the momentum buffers; the next two agree.
  EXPECT_EQ(run.body_runs, 3) << "traced three times, replayed 17 times";
  expect_near(run.compiled.grads(), run.eager.grads(), "gradients set by the replay");
  EXPECT_EQ(run.compiled.net->bn->num_batches_tracked.item<std::int64_t>(), 20);
}

TEST_F(CompileState, WritesIntoTheStateBetweenCallsAreSeen) {
  Alongside run(sgd(0.05));
  run.train(12, [](int s, Trainer& t) {
    torch::NoGradGuard no_grad;
    if (s == 6) t.net->fc2->weight.mul_(0.5);
  });
  EXPECT_EQ(run.body_runs, 3);
}

TEST_F(CompileState, ALearningRateChangeRetiresTheProgram) {
  Alongside run(sgd(0.05));
  run.train(16, [](int s, Trainer& t) {
    if (s == 8) t.optimizer->param_groups()[0].options().set_lr(0.01);
  });
  EXPECT_EQ(run.body_runs, 5) << "three traces, then two more with the new learning rate";
}

TEST_F(CompileState, ANewOptimizerRetiresTheProgram) {
  Alongside run(sgd(0.05));
  run.train(14, [](int s, Trainer& t) {
    if (s == 7) t.optimizer = sgd(0.05)(t.net->parameters());
  });
  EXPECT_EQ(run.body_runs, 6) << "three traces before and three after (new momentum buffers)";
}

TEST_F(CompileState, AStepWhoseNumbersChangeEveryCallRunsItsBody) {
  Alongside run([](std::vector<Tensor> p) {
    return std::make_unique<torch::optim::Adam>(p, torch::optim::AdamOptions(1e-2));
  });
  run.train(12);
  EXPECT_EQ(run.body_runs, 12) << "Adam's bias correction differs from step to step";
}

}  // namespace

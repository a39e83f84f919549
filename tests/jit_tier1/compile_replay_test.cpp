// kiln::compile replays a traced call: later calls with the same signature
// run the kept program without running the function's body, and give what
// running the body would have given. Calls that cannot be replayed run the
// body every time. The body counts its runs, so every test sees which path
// a call took.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include <kiln/kiln.h>

#include "jit/tier1/config.h"

namespace {

class CompileReplay : public ::testing::Test {
 protected:
  void SetUp() override {
    kiln::jit::set_enabled(true);
    kiln::jit::set_hot_threshold(1000);  // nothing compiles on the implicit path
  }
  void TearDown() override { kiln::jit::set_enabled(false); }
};

std::vector<float> values(const kiln::Tensor& t) { return t.to_vector<float>(); }

// gelu(x) * w + b with its tanh approximation, element by element.
float gelu_affine(float x, float w, float b) {
  return 0.5f * x * (1 + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x))) * w + b;
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST_F(CompileReplay, LaterCallsSkipTheBodyAndSeeNewValues) {
  int body_runs = 0;
  auto f = kiln::compile([&](const kiln::Tensor& x, const kiln::Tensor& w, const kiln::Tensor& b) {
    ++body_runs;
    return 0.5 * x * (1 + kiln::tanh(0.7978845608 * (x + 0.044715 * x * x * x))) * w + b;
  });
  kiln::Tensor w = kiln::randn({3, 1}), b = kiln::randn({5});
  for (int call = 0; call < 4; ++call) {
    kiln::Tensor x = kiln::randn({3, 5});
    std::vector<float> xs = values(x), ws = values(w), bs = values(b), want;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) want.push_back(gelu_affine(xs[i * 5 + j], ws[i], bs[j]));
    expect_near(values(f(x, w, b)), want, 1e-5f);
  }
  EXPECT_EQ(body_runs, 1) << "traced once, replayed three times";
}

TEST_F(CompileReplay, ATrainingStepThatCallsBackwardIsReplayedIntoTheGradients) {
  // The gradients are reset to undefined before each step (zero_grad with
  // set_to_none): each call makes them anew, and a replay writes them.
  int body_runs = 0;
  auto step = kiln::compile([&](const kiln::Tensor& x, const kiln::Tensor& w, const kiln::Tensor& b) {
    ++body_runs;
    kiln::Tensor loss = (kiln::matmul(x, w) + b).tanh().pow(2).mean();
    loss.backward();
    return loss;
  });
  kiln::Tensor w = kiln::randn({4, 3}).requires_grad_(true), b = kiln::randn({3}).requires_grad_(true);
  kiln::Tensor w_eager = w.detach().clone().requires_grad_(true), b_eager = b.detach().clone().requires_grad_(true);
  for (int call = 0; call < 4; ++call) {
    kiln::Tensor x = kiln::randn({5, 4});
    w.mutable_grad() = kiln::Tensor();
    b.mutable_grad() = kiln::Tensor();
    w_eager.mutable_grad() = kiln::Tensor();
    b_eager.mutable_grad() = kiln::Tensor();
    kiln::Tensor loss = step(x, w, b);
    kiln::Tensor want = (kiln::matmul(x, w_eager) + b_eager).tanh().pow(2).mean();
    want.backward();
    EXPECT_NEAR(loss.item<float>(), want.item<float>(), 1e-6) << "call " << call;
    expect_near(values(w.grad()), values(w_eager.grad()), 1e-6f);
    expect_near(values(b.grad()), values(b_eager.grad()), 1e-6f);
  }
  EXPECT_EQ(body_runs, 1) << "traced once, replayed three times";
}

TEST_F(CompileReplay, StepsThatAccumulateIntoGradientsOrReturnAGraphRunTheBody) {
  int body_runs = 0;
  auto step = kiln::compile([&](const kiln::Tensor& x, const kiln::Tensor& w) {
    ++body_runs;
    kiln::Tensor loss = (x * w).sum();
    loss.backward();
    return loss;
  });
  kiln::Tensor x = kiln::ones({3}), w = kiln::ones({3}).requires_grad_(true);
  for (int call = 0; call < 3; ++call) step(x, w);  // the second call adds to the first's gradient
  EXPECT_EQ(values(w.grad()), (std::vector<float>{3, 3, 3}));
  EXPECT_EQ(body_runs, 3);

  int forward_runs = 0;
  auto forward = kiln::compile([&](const kiln::Tensor& x, const kiln::Tensor& w) {
    ++forward_runs;
    return x * w;  // the caller will backpropagate through it: a replay has no graph
  });
  for (int call = 0; call < 3; ++call) {
    kiln::Tensor y = forward(x, w);
    EXPECT_TRUE(y.requires_grad());
  }
  EXPECT_EQ(forward_runs, 3);
}

TEST_F(CompileReplay, EachSignatureIsTracedOnce) {
  int body_runs = 0;
  auto f = kiln::compile([&](const kiln::Tensor& x, double scale) {
    ++body_runs;
    return (x * scale).exp();
  });
  kiln::Tensor a = kiln::rand({8}), b = kiln::rand({2, 8}), c = kiln::rand({8}, kiln::kFloat64);
  kiln::Tensor at = kiln::rand({8, 2}).t();  // same sizes as b, other strides
  for (int round = 0; round < 3; ++round) {
    for (const kiln::Tensor* x : {&a, &b, &c, &at})
      for (double s : {0.5, 2.0}) {
        std::vector<double> xs = x->to_vector<double>(), got = f(*x, s).to_vector<double>();
        ASSERT_EQ(got.size(), xs.size());
        double tol = x->dtype() == kiln::kFloat64 ? 1e-12 : 1e-5;
        for (std::size_t i = 0; i < xs.size(); ++i) EXPECT_NEAR(got[i], std::exp(xs[i] * s), tol * std::exp(xs[i] * s));
      }
  }
  EXPECT_EQ(body_runs, 8) << "4 tensor signatures x 2 scales, each traced on its first call only";
}

TEST_F(CompileReplay, InPlaceUpdatesOfArgumentsAreReplayed) {
  int body_runs = 0;
  auto step = kiln::compile([&](kiln::Tensor& param, const kiln::Tensor& grad, double lr) {
    ++body_runs;
    param.sub_(grad * lr);
  });
  kiln::Tensor p = kiln::zeros({6}), g = kiln::ones({6});
  for (int i = 0; i < 5; ++i) step(p, g, 0.25);
  expect_near(values(p), std::vector<float>(6, -1.25f), 1e-6f);
  EXPECT_EQ(body_runs, 1);
}

TEST_F(CompileReplay, ArgumentsWithPendingOpsAreComputedFirst) {
  auto f = kiln::compile([](const kiln::Tensor& x) { return x * 2; });
  kiln::Tensor x = kiln::ones({4});
  std::vector<float> first = values(f(x + 1));
  kiln::Tensor pending = x + 2;  // recorded, not run
  EXPECT_EQ(values(f(pending)), std::vector<float>(4, 6.0f));
  EXPECT_EQ(first, std::vector<float>(4, 4.0f));
}

TEST_F(CompileReplay, ResultsOfTwoCallsAreDistinctTensors) {
  auto f = kiln::compile([](const kiln::Tensor& x) { return std::make_tuple(x + 1, (x + 1).sum()); });
  kiln::Tensor x = kiln::arange(5, kiln::kFloat32);
  auto [a1, s1] = f(x);
  auto [a2, s2] = f(x);
  a2.add_(10);
  EXPECT_EQ(values(a1), (std::vector<float>{1, 2, 3, 4, 5}));
  EXPECT_EQ(s1.item<float>(), 15.0f);
  EXPECT_EQ(s2.item<float>(), 15.0f);
}

TEST_F(CompileReplay, VectorResultsAndViewsOfArguments) {
  int body_runs = 0;
  auto f = kiln::compile([&](const kiln::Tensor& x) {
    ++body_runs;
    return std::vector<kiln::Tensor>{x.t(), (x * x).t()};
  });
  for (int i = 0; i < 3; ++i) {
    kiln::Tensor x = kiln::full({2, 3}, static_cast<double>(i + 1));
    std::vector<kiln::Tensor> r = f(x);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].sizes().vec(), (std::vector<std::int64_t>{3, 2}));
    EXPECT_EQ(values(r[1]), std::vector<float>(6, static_cast<float>((i + 1) * (i + 1))));
  }
  // x.t() is a view of the argument made by no op: the body has one op
  // (x * x), so the call is a single segment and replays.
  EXPECT_EQ(body_runs, 1);
}

TEST_F(CompileReplay, TensorsFromOutsideTheArgumentsAreNeverFrozen) {
  int body_runs = 0;
  kiln::Tensor bias = kiln::ones({3});
  auto f = kiln::compile([&](const kiln::Tensor& x) {
    ++body_runs;
    return x + bias;
  });
  kiln::Tensor x = kiln::zeros({3});
  EXPECT_EQ(values(f(x)), std::vector<float>(3, 1.0f));
  bias = kiln::full({3}, 5.0);  // a new tensor behind the captured reference
  EXPECT_EQ(values(f(x)), std::vector<float>(3, 5.0f));
  EXPECT_EQ(body_runs, 2) << "a body reading a non-argument tensor runs every call";
}

TEST_F(CompileReplay, BodiesThatReadValuesOrDrawRandomNumbersRunEveryCall) {
  int runs_item = 0, runs_rand = 0;
  auto reads = kiln::compile([&](const kiln::Tensor& x) {
    ++runs_item;
    return x * (x.sum().item<float>());
  });
  auto draws = kiln::compile([&](const kiln::Tensor& x) {
    ++runs_rand;
    return x + kiln::rand({4});
  });
  kiln::Tensor x = kiln::ones({4});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(values(reads(x)), std::vector<float>(4, 4.0f));
  EXPECT_NE(values(draws(x)), values(draws(x))) << "fresh random numbers on every call";
  EXPECT_EQ(runs_item, 3);
  EXPECT_EQ(runs_rand, 2);
}

TEST_F(CompileReplay, AliasingBetweenArgumentsIsPartOfTheSignature) {
  int body_runs = 0;
  auto f = kiln::compile([&](kiln::Tensor& a, const kiln::Tensor& b) {
    ++body_runs;
    a.add_(b);
    return a * 1;
  });
  kiln::Tensor a = kiln::ones({4}), b = kiln::ones({4});
  EXPECT_EQ(values(f(a, b)), std::vector<float>(4, 2.0f));
  EXPECT_EQ(values(f(a, a)), std::vector<float>(4, 4.0f)) << "a += a doubles it";
  EXPECT_EQ(values(f(a, b)), std::vector<float>(4, 5.0f));
  EXPECT_EQ(values(f(a, a)), std::vector<float>(4, 10.0f));
  EXPECT_EQ(body_runs, 2);
}

TEST_F(CompileReplay, ErrorsInTheBodyStillThrowAndLaterCallsWork) {
  auto f = kiln::compile([](const kiln::Tensor& a, const kiln::Tensor& b) { return a + b; });
  EXPECT_THROW(f(kiln::ones({2}), kiln::ones({3})), kiln::ShapeError);
  EXPECT_EQ(values(f(kiln::ones({2}), kiln::ones({2}))), std::vector<float>(2, 2.0f));
  EXPECT_EQ(values(f(kiln::ones({2}), kiln::full({2}, 3.0))), std::vector<float>(2, 4.0f));
}

TEST_F(CompileReplay, AnArgumentThatCouldNotBeComputedThrowsOnReplay) {
  auto f = kiln::compile([](const kiln::Tensor& x) { return x * 2; });
  f(kiln::ones({2}));
  kiln::Tensor bad = kiln::ones({3}).index_select(0, kiln::tensor({0, 6}) + 1);  // a pending index 7: out of range
  EXPECT_THROW((void)bad.to_vector<float>(), kiln::IndexError);
  EXPECT_THROW(f(bad), kiln::Error) << "never the garbage of a failed tensor";
  EXPECT_EQ(values(f(kiln::ones({2}))), std::vector<float>(2, 2.0f));
}

TEST_F(CompileReplay, WithTheJitOffEveryCallRunsTheBody) {
  kiln::jit::set_enabled(false);
  int body_runs = 0;
  auto f = kiln::compile([&](const kiln::Tensor& x) {
    ++body_runs;
    return x + 1;
  });
  for (int i = 0; i < 3; ++i) EXPECT_EQ(values(f(kiln::zeros({2}))), std::vector<float>(2, 1.0f));
  EXPECT_EQ(body_runs, 3);
}

}  // namespace

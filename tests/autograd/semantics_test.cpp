// What a LibTorch user relies on from autograd, one behaviour per test.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;

std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

TEST(Autograd, LeavesNonLeavesAndNodeNames) {
  Tensor x = kiln::ones({2, 2}, kiln::requires_grad());
  EXPECT_TRUE(x.requires_grad());
  EXPECT_TRUE(x.is_leaf());
  EXPECT_EQ(x.grad_fn(), nullptr);
  Tensor y = x + 2;
  EXPECT_FALSE(y.is_leaf());
  EXPECT_EQ(y.grad_fn()->name(), "AddBackward1");  // the (Tensor, Scalar) overload, as LibTorch numbers it
  EXPECT_EQ((y + y).grad_fn()->name(), "AddBackward0");
  EXPECT_EQ((y * y).grad_fn()->name(), "MulBackward0");
  EXPECT_EQ((y * 3).grad_fn()->name(), "MulBackward1");
  EXPECT_EQ((2 - y).grad_fn()->name(), "RsubBackward1");
  EXPECT_EQ(y.pow(2).grad_fn()->name(), "PowBackward0");
  EXPECT_EQ(y.pow(y).grad_fn()->name(), "PowBackward1");
  EXPECT_EQ(y.mean().grad_fn()->name(), "MeanBackward0");
  EXPECT_EQ(y.sum().grad_fn()->name(), "SumBackward0");
  EXPECT_EQ(y.sum({0}).grad_fn()->name(), "SumBackward1");
  EXPECT_EQ(kiln::mm(y, y).grad_fn()->name(), "MmBackward0");
  EXPECT_EQ(y.t().grad_fn()->name(), "TBackward0");
  EXPECT_EQ(y.softmax(1).grad_fn()->name(), "SoftmaxBackward0");
  EXPECT_EQ(y.grad_fn()->next_edges().size(), 2u);
  Tensor plain = kiln::ones({2});
  EXPECT_FALSE((plain * 2).requires_grad());
}

TEST(Autograd, TheAutogradTutorialValues) {
  Tensor x = kiln::ones({2, 2}, kiln::requires_grad());
  Tensor out = ((x + 2) * (x + 2) * 3).mean();
  out.backward();
  EXPECT_EQ(values(x.grad()), std::vector<double>(4, 4.5));
}

TEST(Autograd, GradientsAccumulateAcrossBackwardCalls) {
  Tensor x = kiln::tensor({1.0, 2.0}, kiln::TensorOptions(kiln::kFloat64).requires_grad(true));
  (x * x).sum().backward();
  (x * 3).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{5, 7}));
  x.mutable_grad() = Tensor();
  (x * 3).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{3, 3}));
}

TEST(Autograd, VectorJacobianProductAndBroadcastingReducesBack) {
  Tensor a = kiln::ones({3, 1}, kiln::requires_grad());
  Tensor b = kiln::ones({4}, kiln::requires_grad());
  Tensor y = a * b * 2;  // [3, 4]
  y.backward(kiln::ones({3, 4}));
  EXPECT_EQ(a.grad().sizes(), (std::vector<std::int64_t>{3, 1}));
  EXPECT_EQ(values(a.grad()), std::vector<double>(3, 8));
  EXPECT_EQ(values(b.grad()), std::vector<double>(4, 6));
}

TEST(Autograd, RetainGraphAllowsASecondBackward) {
  Tensor x = kiln::tensor({2.0}, kiln::TensorOptions().requires_grad(true));
  Tensor y = x.exp();
  y.backward({}, true);
  y.backward();
  EXPECT_NEAR(values(x.grad())[0], 2 * std::exp(2.0), 1e-4);
  EXPECT_THROW(y.backward(), kiln::AutogradError);
}

TEST(Autograd, HigherOrderGradients) {
  Tensor x = kiln::tensor({1.5}, kiln::TensorOptions(kiln::kFloat64).requires_grad(true));
  Tensor y = x.pow(3);
  Tensor dy = kiln::autograd::grad({y}, {x}, {}, std::nullopt, true)[0];
  EXPECT_DOUBLE_EQ(values(dy)[0], 3 * 1.5 * 1.5);
  Tensor d2y = kiln::autograd::grad({dy}, {x}, {}, std::nullopt, true)[0];
  EXPECT_DOUBLE_EQ(values(d2y)[0], 6 * 1.5);
  d2y.backward();
  EXPECT_DOUBLE_EQ(values(x.grad())[0], 6);
}

TEST(Autograd, GradDoesNotAccumulateAndReportsUnusedInputs) {
  Tensor x = kiln::ones({2}, kiln::requires_grad());
  Tensor z = kiln::ones({2}, kiln::requires_grad());
  Tensor y = (x * 4).sum();
  EXPECT_THROW(kiln::autograd::grad({y}, {x, z}, {}, true), kiln::AutogradError);
  auto g = kiln::autograd::grad({y}, {x, z}, {}, std::nullopt, false, true);
  EXPECT_EQ(values(g[0]), std::vector<double>(2, 4));
  EXPECT_FALSE(g[1].defined());
  EXPECT_FALSE(x.grad().defined());
}

TEST(Autograd, BackwardWithInputsAccumulatesOnlyThere) {
  Tensor x = kiln::ones({2}, kiln::requires_grad());
  Tensor w = kiln::ones({2}, kiln::requires_grad());
  (x * w * 3).sum().backward({}, std::nullopt, false, std::vector<Tensor>{w});
  EXPECT_FALSE(x.grad().defined());
  EXPECT_EQ(values(w.grad()), std::vector<double>(2, 3));
}

TEST(Autograd, RetainGradKeepsANonLeafGradient) {
  Tensor x = kiln::ones({2}, kiln::requires_grad());
  Tensor h = x * 2;
  h.retain_grad();
  EXPECT_TRUE(h.retains_grad());
  (h * h).sum().backward();
  EXPECT_EQ(values(h.grad()), std::vector<double>(2, 4));
  EXPECT_EQ(values(x.grad()), std::vector<double>(2, 8));
}

TEST(Autograd, ModesDetachAndIntegerTensors) {
  Tensor x = kiln::ones({2}, kiln::requires_grad());
  {
    kiln::NoGradGuard guard;
    EXPECT_FALSE((x * 2).requires_grad());
    EXPECT_FALSE(kiln::GradMode::is_enabled());
    kiln::AutoGradMode on(true);
    EXPECT_TRUE((x * 2).requires_grad());
  }
  {
    kiln::InferenceMode guard;
    EXPECT_TRUE(kiln::InferenceMode::is_enabled());
    EXPECT_FALSE((x * 2).requires_grad());
  }
  EXPECT_TRUE((x * 2).requires_grad());
  Tensor d = x.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_same_storage(x));
  Tensor y = x * 2;
  y.detach_();
  EXPECT_TRUE(y.is_leaf());
  EXPECT_FALSE(y.requires_grad());
  Tensor i = kiln::arange(4);
  EXPECT_FALSE((i * x.sum().to(kiln::kInt64)).requires_grad());
  EXPECT_FALSE(x.argmax().requires_grad());
  EXPECT_FALSE((x > 0).requires_grad());
}

TEST(Autograd, NoGradGuardIsPerThread) {
  Tensor x = kiln::ones({2}, kiln::requires_grad());
  kiln::NoGradGuard guard;
  bool other_thread_records = false;
  std::thread t([&] { other_thread_records = (x * 2).requires_grad(); });
  t.join();
  EXPECT_TRUE(other_thread_records);
  EXPECT_FALSE((x * 2).requires_grad());
}

TEST(Autograd, InPlaceOnNonLeafRebasesHistory) {
  Tensor x = kiln::tensor({1.0, 2.0}, kiln::TensorOptions(kiln::kFloat64).requires_grad(true));
  Tensor y = x * 1.0;
  y.mul_(x);  // y = x^2
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  y.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{2, 4}));
}

TEST(Autograd, InPlaceOpReadingItsOwnTargetIsCaughtAsLibTorchDoes) {
  Tensor x = kiln::tensor({1.0, 2.0}, kiln::TensorOptions(kiln::kFloat64).requires_grad(true));
  Tensor y = x * 1.0;
  y.mul_(y);  // the saved operand y is the tensor the op overwrote
  EXPECT_THROW(y.sum().backward(), kiln::AutogradError);
}

TEST(Autograd, InPlaceThroughAViewReachesTheBase) {
  Tensor x = kiln::tensor({1.0, 2.0, 3.0}, kiln::TensorOptions(kiln::kFloat64).requires_grad(true));
  Tensor y = x * 1.0;
  y.narrow(0, 1, 2).mul_(10.0);
  EXPECT_EQ(y.grad_fn()->name(), "CopySlices");
  y.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{1, 10, 10}));
}

TEST(Autograd, VersionCounterCountsInPlaceWrites) {
  Tensor x = kiln::zeros({3});
  EXPECT_EQ(x._version(), 0u);
  x.add_(1);
  x.narrow(0, 0, 1).fill_(2);
  EXPECT_EQ(x._version(), 2u);
}

TEST(Autograd, CreationOptionsAndRequiresGradFlag) {
  EXPECT_TRUE(kiln::randn({3}, kiln::requires_grad()).requires_grad());
  EXPECT_TRUE(kiln::tensor({1.0, 2.0}, kiln::TensorOptions().requires_grad(true)).requires_grad());
  Tensor a = kiln::zeros({2});
  a.requires_grad_();
  EXPECT_TRUE(a.requires_grad());
  a.requires_grad_(false);
  EXPECT_FALSE(a.requires_grad());
}

struct Square : kiln::autograd::Function<Square> {
  static Tensor forward(kiln::autograd::AutogradContext* ctx, Tensor x, double scale) {
    ctx->save_for_backward({x});
    ctx->saved_data["scale"] = scale;
    return x * x * scale;
  }
  static kiln::autograd::variable_list backward(kiln::autograd::AutogradContext* ctx,
                                                kiln::autograd::variable_list grads) {
    Tensor x = ctx->get_saved_variables()[0];
    return {grads[0] * 2 * x * ctx->saved_data["scale"].toDouble(), Tensor()};
  }
};

struct ScaleInPlace : kiln::autograd::Function<ScaleInPlace> {
  static Tensor forward(kiln::autograd::AutogradContext* ctx, Tensor x) {
    ctx->mark_dirty({x});
    return x.mul_(3);
  }
  static kiln::autograd::variable_list backward(kiln::autograd::AutogradContext*, kiln::autograd::variable_list g) {
    return {g[0] * 3};
  }
};

TEST(Autograd, CustomFunctions) {
  Tensor x = kiln::tensor({1.0, -2.0}, kiln::TensorOptions(kiln::kFloat64).requires_grad(true));
  Tensor y = Square::apply(x, 0.5);
  EXPECT_EQ(y.grad_fn()->name(), "(anonymous namespace)::Square");
  y.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{1, -2}));
  Tensor h = x * 1.0;
  Tensor z = ScaleInPlace::apply(h);
  EXPECT_TRUE(z.is_same_storage(h));
  z.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{4, 1}));
  Tensor plain = kiln::ones({2}, kiln::kFloat64);
  EXPECT_FALSE(Square::apply(plain, 2.0).requires_grad());
}

TEST(Autograd, BackwardOpsAreDeferredAndJoinTheTrace) {
  Tensor x = kiln::ones({4}, kiln::requires_grad());
  std::uint64_t before = kiln::stats().segments_run;
  Tensor loss = ((x * 2).exp() + x).sum();
  loss.backward();
  EXPECT_EQ(kiln::stats().segments_run, before) << "backward ran something instead of recording it";
  EXPECT_NEAR(values(x.grad())[0], 2 * std::exp(2.0) + 1, 1e-4);
}

TEST(Autograd, DtypeConversionPassesTheGradientBackInTheSourceDtype) {
  Tensor x = kiln::tensor({0.5, -1.0}, kiln::TensorOptions(kiln::kFloat64).requires_grad(true));
  Tensor y = (x * 4).to(kiln::kFloat32);
  EXPECT_EQ(y.grad_fn()->name(), "ToCopyBackward0");
  y.sum().backward();
  EXPECT_EQ(x.grad().dtype(), kiln::kFloat64);
  EXPECT_EQ(values(x.grad()), (std::vector<double>{4, 4}));
  EXPECT_EQ(x.clone().grad_fn()->name(), "CloneBackward0");
}

TEST(Autograd, LinearWeightGradientIsComputedInTheWeightsLayout) {
  // x @ W.t() reads W column by column; its gradient is computed transposed
  // so that it arrives contiguous, with no strided copy (as LibTorch).
  Tensor x = kiln::randn({5, 3});
  Tensor w = kiln::randn({4, 3}, kiln::requires_grad());
  kiln::nn::functional::linear(x, w).sum().backward();
  EXPECT_TRUE(w.grad().is_contiguous());
  std::vector<float> want = kiln::matmul(kiln::ones({4, 5}), x).to_vector<float>();
  std::vector<float> got = w.grad().to_vector<float>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5);
  // A 3-d input: the weight, broadcast over the batch, gets one product over
  // batch x rows, still in its layout, with nothing left to sum.
  Tensor w3 = kiln::randn({4, 3}, kiln::requires_grad());
  kiln::nn::functional::linear(x.reshape({1, 5, 3}).expand({2, 5, 3}), w3).sum().backward();
  EXPECT_TRUE(w3.grad().is_contiguous());
  got = w3.grad().to_vector<float>();
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], 2 * want[i], 1e-5);
}

TEST(Autograd, AViewMadeBeforeItsBaseWasWrittenSeesTheWrite) {
  // LibTorch re-derives a view's history once its base changed: here an
  // expanded view, whose three elements share one of the base's.
  Tensor x = kiln::tensor({1.5}, kiln::TensorOptions(kiln::kFloat64).requires_grad(true));
  Tensor y = x * 1.0;
  Tensor e = y.expand({3});
  y.mul_(2.0);
  EXPECT_EQ(e.grad_fn()->name(), "AsStridedBackward0");
  (e * kiln::tensor({1.0, 2.0, 4.0}, kiln::kFloat64)).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{14}));
}

TEST(Autograd, AnEmptySliceGetsAZeroGradient) {
  Tensor x = kiln::ones({4}, kiln::TensorOptions(kiln::kFloat64).requires_grad(true));
  (x.slice(0, -4, 0, 2).sum() + x.sum()).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{1, 1, 1, 1}));
}

}  // namespace

// Runs `fn` on a thread whose stack is `bytes` long.
void on_small_stack(std::size_t bytes, void (*fn)()) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, bytes), 0);
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, &attr, [](void* f) -> void* {
    reinterpret_cast<void (*)()>(f)();
    return nullptr;
  }, reinterpret_cast<void*>(fn)), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

// Dropping a graph frees its nodes in a loop, not one nested destructor per
// node: a long recurrent loop's graph must not overflow the stack (with
// nested destructors, this chain overflowed the thread's 1 MiB stack).
TEST(Autograd, DroppingALongChainsGraphDoesNotRecursePerNode) {
  const bool jit = kiln::jit::enabled();
  kiln::jit::set_enabled(false);  // about lifetimes, not kernels
  on_small_stack(1 << 20, [] {
    Tensor x = kiln::ones({4}, kiln::requires_grad());
    Tensor y = x;
    for (int i = 0; i < 100'000; ++i) y = y * 1.0;
    y.data_ptr<float>();
    y = Tensor();
  });
  kiln::jit::set_enabled(jit);
}

// A graph a thread-local holds is dropped at thread exit, possibly after the
// thread's own release list is gone (thread-locals die in reverse order of
// construction); it must still be freed, not pushed onto a destroyed list
// (AddressSanitizer catches that).
TEST(Autograd, AGraphHeldByAThreadLocalIsFreedAtThreadExit) {
  std::thread([] {
    thread_local Tensor held;
    Tensor x = kiln::ones({2}, kiln::requires_grad());
    held = x * 2 * 3;
    { Tensor dropped = x * 4 * 5; }  // the release list is made after `held`
  }).join();
  SUCCEED();
}

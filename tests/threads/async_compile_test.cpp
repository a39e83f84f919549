// The compile-while-running path: kernels of many segment keys compile in
// the background arena while the user's threads keep running those keys;
// every iteration, on whichever tier it ran, must give the same numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include <unistd.h>
#include <vector>

#include <kiln/kiln.h>

namespace {

// sum(exp(x * k) - 1) for x = ones(n): a key per (n, k position in the chain).
float run_chain(std::int64_t n, int variant) {
  kiln::Tensor x = kiln::ones({n});
  kiln::Tensor y = x * 0.5;
  for (int i = 0; i < variant % 3 + 1; ++i) y = (y * 1.0).tanh();
  return (y.exp() - 1).sum().item<float>();
}

float expected(std::int64_t n, int variant) {
  double y = 0.5;
  for (int i = 0; i < variant % 3 + 1; ++i) y = std::tanh(y);
  return static_cast<float>(n * (std::exp(y) - 1));
}

TEST(AsyncCompile, ManyKeysCompileWhileTheirThreadsRunThem) {
  kiln::jit::set_enabled(true);
  kiln::jit::set_compile_sync(false);
  kiln::jit::set_hot_threshold(1);
  const std::uint64_t before = kiln::stats().jit.compiles_requested;
  // Sizes no earlier run used, so the kernels really compile now rather
  // than load from the on-disk cache an earlier run of this test filled.
  const std::int64_t base_size = 1000 + (::getpid() % 100000) * 7;
  std::vector<std::thread> threads;
  std::vector<int> errors(3, 0);
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([t, base_size, &errors] {
      for (int iter = 0; iter < 40; ++iter) {
        int variant = (iter + t) % 6;
        std::int64_t n = base_size + 17 * variant;
        float got = run_chain(n, variant);
        if (std::abs(got - expected(n, variant)) > 1e-3f * std::abs(expected(n, variant))) ++errors[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  kiln::jit::wait_for_compiles();
  for (int t = 0; t < 3; ++t) EXPECT_EQ(errors[t], 0) << "thread " << t;
  kiln::Stats s = kiln::stats();
  EXPECT_GT(s.jit.compiles_requested, before);
  EXPECT_EQ(s.jit.compiles_in_flight, 0u);
  EXPECT_EQ(s.jit.compiles_failed, 0u);
  kiln::jit::set_hot_threshold(2);
}

}  // namespace

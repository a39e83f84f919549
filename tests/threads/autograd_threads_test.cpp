// Autograd on several threads: each thread builds and runs backward through
// its own graph; a shared leaf accumulates the gradients of all of them; grad
// mode is per thread. Small and deterministic, as CI runs it under TSan.
#include <gtest/gtest.h>

#include <cmath>
#include <latch>
#include <thread>
#include <vector>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;

TEST(AutogradThreads, EachThreadBackwardsThroughItsOwnGraph) {
  constexpr int kThreads = 4, kIters = 10;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> ts;
  std::latch start(kThreads);
  for (int id = 0; id < kThreads; ++id) {
    ts.emplace_back([id, &wrong, &start] {
      start.arrive_and_wait();
      for (int i = 0; i < kIters; ++i) {
        Tensor x = kiln::full({8}, static_cast<double>(id + i), kiln::TensorOptions(kiln::kFloat64).requires_grad(true));
        Tensor y = (x * x * 0.5 + x.sin()).sum();
        y.backward();
        std::vector<double> g = x.grad().to_vector<double>();
        double want = (id + i) + std::cos(static_cast<double>(id + i));
        for (double v : g)
          if (std::abs(v - want) > 1e-12) ++wrong[id];
      }
    });
  }
  for (auto& t : ts) t.join();
  for (int id = 0; id < kThreads; ++id) EXPECT_EQ(wrong[id], 0) << "thread " << id;
}

TEST(AutogradThreads, ASharedLeafAccumulatesEveryThreadsGradient) {
  constexpr int kThreads = 4;
  Tensor w = kiln::ones({16}, kiln::TensorOptions(kiln::kFloat64).requires_grad(true));
  std::latch start(kThreads);
  std::vector<std::thread> ts;
  for (int id = 0; id < kThreads; ++id) {
    ts.emplace_back([id, &w, &start] {
      start.arrive_and_wait();
      (w * static_cast<double>(id + 1)).sum().backward();
    });
  }
  for (auto& t : ts) t.join();
  for (double v : w.grad().to_vector<double>()) EXPECT_EQ(v, 1 + 2 + 3 + 4);
}

TEST(AutogradThreads, NoGradGuardOnOneThreadLeavesTheOthersRecording) {
  Tensor x = kiln::ones({4}, kiln::requires_grad());
  std::latch guarded(1), checked(1);
  bool other_records = false, guarded_records = true;
  std::thread a([&] {
    kiln::NoGradGuard no_grad;
    guarded.count_down();
    checked.wait();
    guarded_records = (x * 2).requires_grad();
  });
  std::thread b([&] {
    guarded.wait();
    other_records = (x * 2).requires_grad();
    checked.count_down();
  });
  a.join();
  b.join();
  EXPECT_TRUE(other_records);
  EXPECT_FALSE(guarded_records);
}

}  // namespace

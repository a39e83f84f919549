// One kiln::compile'd function called from several threads at once: they
// share its program (traced once) and each call gets its own results.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include <kiln/kiln.h>

namespace {

TEST(CompileReplayThreads, ConcurrentCallsShareOneProgram) {
  kiln::jit::set_enabled(true);
  std::atomic<int> body_runs = 0;
  auto f = kiln::compile([&](const kiln::Tensor& x) {
    ++body_runs;
    return (x * 3).relu() - 1;
  });
  f(kiln::zeros({16}));
  std::vector<std::thread> threads;
  std::atomic<int> wrong = 0;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        float v = static_cast<float>(t + i % 3);
        if (f(kiln::full({16}, v)).to_vector<float>() != std::vector<float>(16, 3 * v - 1)) ++wrong;
      }
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(body_runs.load(), 1);
  kiln::jit::set_enabled(false);
}

}  // namespace

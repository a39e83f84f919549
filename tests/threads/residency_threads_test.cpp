// Eviction and recomputation while several threads hold and read tensors
// under one memory budget (run under ThreadSanitizer by make test-tsan):
// each thread's values, some evicted and recomputed (by the thread that
// reads them or by another one's pressure), read back as made without a
// budget. Tier 0, where a recomputed value equals the evicted one bit for bit.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;

// 32 values of 256 KiB, each made from the previous one, all held: 8 MiB.
std::vector<Tensor> chain(const Tensor& x) {
  std::vector<Tensor> out{x};
  for (int i = 0; i < 32; ++i) {
    out.push_back(i % 2 ? (out.back() * 0.5 + 1).tanh() : out.back().matmul(out.back().t()) * (1.0 / 256));
    kiln::sync();
  }
  return out;
}

std::vector<std::vector<float>> read_all(const std::vector<Tensor>& values) {
  std::vector<std::vector<float>> out;
  for (std::size_t i = values.size(); i-- > 0;) out.push_back(values[i].to_vector<float>());
  return out;
}

TEST(ResidencyThreads, ThreadsReadBackTheirValuesWhileEachOthersPressureEvictsThem) {
  kiln::jit::set_enabled(false);
  constexpr int kThreads = 3;
  std::vector<Tensor> inputs;
  for (int t = 0; t < kThreads; ++t) {
    kiln::manual_seed(40 + t);
    inputs.push_back(kiln::randn({256, 256}));
  }
  std::vector<std::vector<std::vector<float>>> expected;
  for (const Tensor& x : inputs) expected.push_back(read_all(chain(x)));

  kiln::sync();
  // Not even one thread's chain fits, however the threads interleave;
  // what three threads need at once (two values and a product's ~0.6 MiB
  // of workspace each) does.
  kiln::set_memory_budget(kiln::stats().live_bytes + 5 * (std::size_t{1} << 20));
  const std::uint64_t evictions = kiln::stats().evictions;
  std::vector<std::vector<std::vector<float>>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      const std::vector<Tensor> values = chain(inputs[t]);
      for (int round = 0; round < 3; ++round) seen[t] = read_all(values);
    });
  for (std::thread& thread : threads) thread.join();
  kiln::set_memory_budget(0);
  kiln::jit::set_enabled(true);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(seen[t], expected[t]) << "thread " << t;
  EXPECT_GT(kiln::stats().evictions, evictions);
}

}  // namespace

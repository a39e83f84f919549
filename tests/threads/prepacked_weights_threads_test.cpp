// Threads running inference on the same weights at once share the cache of
// packed weights (jit/kernels/gemm_prepacked.h): they pack, read and evict
// its entries concurrently (its limit fits one weight of two, so entries go
// while other threads read them), and every product equals the one computed
// before any panels were kept, bit for bit (the same panels, packed by the
// same code, either way).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include <kiln/kiln.h>

#include "jit/kernels/gemm_prepacked.h"

namespace {

namespace F = kiln::nn::functional;

TEST(PrepackedWeightsThreads, ConcurrentInferenceSharesAndEvictsPackedWeights) {
  kiln::manual_seed(5);
  const std::vector<kiln::Tensor> weights = {kiln::randn({96, 200}), kiln::randn({96, 200})};
  std::vector<kiln::Tensor> inputs;
  for (int t = 0; t < 4; ++t) inputs.push_back(kiln::randn({24, 200}));
  const std::uint64_t limit = kiln::prepack_max_bytes();
  kiln::set_prepack_max_bytes(0);
  std::vector<std::vector<std::vector<float>>> want(inputs.size());
  for (std::size_t t = 0; t < inputs.size(); ++t)
    for (const kiln::Tensor& w : weights) want[t].push_back(F::linear(inputs[t], w).to_vector<float>());
  // The products above asked for the generated register tile of this shape;
  // found in the disk cache (another test of this suite compiled it), it is
  // loaded in the background. Were it to arrive between the two products
  // below, their panels would differ in width and neither would be kept.
  kiln::jit::wait_for_compiles();
  // Room for one weight's panels, not two. Their size (96 x 200 floats,
  // padded to the register tile and the blocks, which depend on the CPU)
  // is that of the entry one product packs: a weight is packed the second
  // time a product reads it.
  kiln::set_prepack_max_bytes(64 << 20);
  for (int i = 0; i < 2; ++i) F::linear(inputs[0], weights[0]).to_vector<float>();
  const std::uint64_t one_weight = kiln::jit::kernels::prepack_stats().bytes;
  ASSERT_GT(one_weight, 0u) << "the weight was not packed";
  kiln::set_prepack_max_bytes(one_weight * 3 / 2);
  const auto before = kiln::jit::kernels::prepack_stats();

  std::atomic<int> wrong = 0;
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < inputs.size(); ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        const std::size_t which = (t + static_cast<std::size_t>(i) / 3) % weights.size();
        if (F::linear(inputs[t], weights[which]).to_vector<float>() != want[t][which]) ++wrong;
      }
    });
  for (std::thread& th : threads) th.join();
  const auto after = kiln::jit::kernels::prepack_stats();
  kiln::set_prepack_max_bytes(limit);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(after.packed, before.packed);
  EXPECT_GT(after.hits, before.hits);
}

}  // namespace

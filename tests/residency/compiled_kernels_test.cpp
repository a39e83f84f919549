// Values read and made by compiled kernels under a memory budget. A GEMM
// fused with its epilogue reads its operands outside the kernel's own inputs
// and allocates packing workspace while it runs: that allocation may evict,
// but never an operand the GEMM is about to read.
#include "jit/tier1/matmul_epilogue.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;

class CompiledKernelsUnderBudget : public ::testing::Test {
 protected:
  void SetUp() override {
    kiln::jit::set_enabled(true);
    kiln::jit::set_compile_sync(true);
    kiln::jit::set_hot_threshold(1);
    // Least recently used first: the GEMM's left operand, made first, is the
    // one an unpinned GEMM would lose.
    kiln::set_eviction_policy("lru");
  }
  void TearDown() override {
    kiln::set_memory_budget(0);
    kiln::set_eviction_policy("dtr");
    kiln::jit::set_compile_sync(false);
    kiln::jit::set_hot_threshold(2);
  }
};

TEST_F(CompiledKernelsUnderBudget, AGemmsOperandsStayWhileItsWorkspaceIsMade) {
  kiln::manual_seed(9);
  kiln::set_memory_budget(std::size_t{1} << 30);  // values keep their recipes while a budget is set
  const Tensor x = kiln::randn({512, 512});
  const Tensor a = (x * 0.5).tanh();  // the GEMM's left operand, evictable (it has a recipe)
  const Tensor b = (x + 1).tanh();    // evictable too, and used more recently
  kiln::sync();
  const std::uint64_t live = kiln::stats().live_bytes;
  kiln::reset_stats();
  const std::vector<float> expected = a.matmul(x).relu().to_vector<float>();  // compiles the group
  const std::uint64_t needed = kiln::stats().peak_bytes - live;  // the product and the GEMM's workspace

  // Half a MiB short of that: one of the two 1 MiB values must go while the
  // GEMM runs, and it must be b.
  kiln::set_memory_budget(live + needed - (std::size_t{1} << 19));
  const std::uint64_t fused = kiln::jit::matmul_epilogue_runs();
  const std::uint64_t evictions = kiln::stats().evictions;
  EXPECT_EQ(a.matmul(x).relu().to_vector<float>(), expected);
  EXPECT_EQ(kiln::jit::matmul_epilogue_runs() - fused, 1u) << "the compiled GEMM with its epilogue ran";
  EXPECT_GT(kiln::stats().evictions, evictions);
  kiln::set_memory_budget(0);
  EXPECT_EQ(b.sum().item<float>(), (x + 1).tanh().sum().item<float>());
}

}  // namespace

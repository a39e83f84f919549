// The communication counters of kiln::stats() (counters.def, "Filled from
// kiln::distributed"): bytes all-reduced and broadcast, all-reduce time, and
// for DistributedDataParallel the gradient all-reduce time, backward's wait
// and the overlap fraction. Checked as differences across the calls.
#include <gtest/gtest.h>

#include <kiln/c10d.h>
#include <kiln/distributed/data_parallel.h>
#include <kiln/torch.h>

namespace {

TEST(CommCounters, AllreduceAndBroadcastCountTheirBytesAndTime) {
  auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
  const kiln::Stats before = kiln::stats();
  std::vector<torch::Tensor> floats{torch::ones({1000})};
  pg->allreduce(floats)->wait();
  std::vector<torch::Tensor> doubles{torch::zeros({10}, torch::kFloat64)};
  pg->broadcast(doubles)->wait();
  pg->barrier()->wait();
  const kiln::Stats after = kiln::stats();
  EXPECT_EQ(after.comm_bytes_allreduced - before.comm_bytes_allreduced, 4000u);
  EXPECT_EQ(after.comm_bytes_broadcast - before.comm_bytes_broadcast, 80u);
  EXPECT_GT(after.allreduce_ms, before.allreduce_ms);
  EXPECT_EQ(after.gradient_allreduce_ms, before.gradient_allreduce_ms);  // not DDP's
}

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(16, 32))), fc2(register_module("fc2", torch::nn::Linear(32, 4))) {}
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

TEST(CommCounters, DataParallelBackwardCountsGradientsWaitAndOverlap) {
  auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
  const std::uint64_t parameter_bytes = (16 * 32 + 32 + 32 * 4 + 4) * sizeof(float);
  const kiln::Stats before = kiln::stats();
  torch::nn::parallel::DistributedDataParallel<Net> ddp(
      Net(), pg, torch::nn::parallel::DistributedDataParallelOptions().bucket_cap_mb(1e-3));
  const kiln::Stats built = kiln::stats();
  EXPECT_EQ(built.comm_bytes_broadcast - before.comm_bytes_broadcast, parameter_bytes);  // rank 0's weights

  torch::manual_seed(7);
  ddp.forward(torch::randn({8, 16})).sum().backward();
  const kiln::Stats after = kiln::stats();
  EXPECT_EQ(after.comm_bytes_allreduced - built.comm_bytes_allreduced, parameter_bytes);
  EXPECT_GT(after.gradient_allreduce_ms, built.gradient_allreduce_ms);
  // Gradient buckets are all-reduces too (the same nanoseconds, rounded apart).
  EXPECT_NEAR(after.allreduce_ms - built.allreduce_ms, after.gradient_allreduce_ms - built.gradient_allreduce_ms, 1e-6);
  EXPECT_GT(after.backward_comm_wait_ms, built.backward_comm_wait_ms);
  EXPECT_GE(after.comm_overlap, 0.0);
  EXPECT_LE(after.comm_overlap, 1.0);
  EXPECT_DOUBLE_EQ(after.comm_overlap,
                   std::clamp(1 - after.backward_comm_wait_ms / after.gradient_allreduce_ms, 0.0, 1.0));
}

}  // namespace

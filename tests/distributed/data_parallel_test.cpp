// DistributedDataParallel: k steps on each rank's shard equal k steps of one
// process on the global batch (losses and weights), whatever the buckets
// and with or without overlap; no_sync accumulates locally.
#include <gtest/gtest.h>

#include <kiln/c10d.h>
#include <kiln/distributed/data_parallel.h>
#include <kiln/torch.h>

namespace {

struct MlpImpl : torch::nn::Module {
  MlpImpl()
      : fc1(register_module("fc1", torch::nn::Linear(5, 7))), fc2(register_module("fc2", torch::nn::Linear(7, 3))) {}
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Mlp);

constexpr std::int64_t kGlobalBatch = 12;  // divisible by 2 and 3 ranks
constexpr int kSteps = 3;

struct Data {
  torch::Tensor x, y;
};

Data global_batch(int step) {
  torch::manual_seed(100 + step);
  return {torch::randn({kGlobalBatch, 5}), torch::randint(3, {kGlobalBatch})};
}

Data shard(const Data& d, int rank, int size) {
  const std::int64_t n = kGlobalBatch / size;
  return {d.x.narrow(0, rank * n, n), d.y.narrow(0, rank * n, n)};
}

std::vector<float> weights(const torch::nn::Module& m) {
  std::vector<float> out;
  for (const torch::Tensor& p : m.parameters()) {
    auto v = p.detach().contiguous().to_vector<float>();
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

// One process, the whole batch: the losses of kSteps SGD steps and the weights after.
std::pair<std::vector<float>, std::vector<float>> reference() {
  torch::manual_seed(1);  // rank 0's initialization below
  Mlp model;
  torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.1));
  std::vector<float> losses;
  for (int step = 0; step < kSteps; ++step) {
    Data d = global_batch(step);
    sgd.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(model->forward(d.x), d.y);
    loss.backward();
    sgd.step();
    losses.push_back(loss.item<float>());
  }
  return {losses, weights(*model)};
}

void expect_near(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5) << what << " " << i;
}

void train_and_compare(const torch::nn::parallel::DistributedDataParallelOptions& options,
                       std::size_t expected_buckets) {
  auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
  const auto [ref_losses, ref_weights] = reference();
  torch::manual_seed(1 + pg->getRank());  // every rank differs until the broadcast
  torch::nn::parallel::DistributedDataParallel<Mlp> ddp(Mlp(), pg, options);
  EXPECT_EQ(ddp.reducer().bucket_sizes().size(), expected_buckets);
  torch::optim::SGD sgd(ddp.parameters(), torch::optim::SGDOptions(0.1));
  std::vector<float> losses;
  for (int step = 0; step < kSteps; ++step) {
    Data d = shard(global_batch(step), pg->getRank(), pg->getSize());
    sgd.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(ddp.forward(d.x), d.y);
    loss.backward();
    sgd.step();
    std::vector<torch::Tensor> l{loss.detach().clone()};
    pg->allreduce(l, c10d::AllreduceOptions{c10d::ReduceOp::AVG});  // the global batch's loss
    losses.push_back(l[0].item<float>());
  }
  expect_near(losses, ref_losses, "loss");
  expect_near(weights(*ddp.module()), ref_weights, "weight");
}

TEST(DistributedDataParallel, StepsEqualOneProcessOnTheGlobalBatchInOneBucket) {
  train_and_compare({}, 1);
}

TEST(DistributedDataParallel, StepsEqualOneProcessOnTheGlobalBatchWithABucketPerParameter) {
  train_and_compare(torch::nn::parallel::DistributedDataParallelOptions().bucket_cap_mb(1e-6), 4);
}

TEST(DistributedDataParallel, StepsEqualOneProcessOnTheGlobalBatchWithoutOverlap) {
  train_and_compare(torch::nn::parallel::DistributedDataParallelOptions().overlap(false), 1);
}

TEST(DistributedDataParallel, NoSyncAccumulatesLocallyAndTheNextBackwardReducesTheSum) {
  auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
  torch::manual_seed(1);
  Mlp reference_model;
  Data first = global_batch(0), second = global_batch(1);
  // One process: the gradients of both global micro-batches, summed.
  for (const Data& d : {first, second})
    torch::nn::functional::cross_entropy(reference_model->forward(d.x), d.y).backward();

  torch::manual_seed(1);
  Mlp local_model;  // this rank's shard alone, for what no_sync leaves
  Data mine = shard(first, pg->getRank(), pg->getSize());
  torch::nn::functional::cross_entropy(local_model->forward(mine.x), mine.y).backward();

  torch::manual_seed(1);
  torch::nn::parallel::DistributedDataParallel<Mlp> ddp(Mlp(), pg);
  {
    auto guard = ddp.no_sync();
    torch::nn::functional::cross_entropy(ddp.forward(mine.x), mine.y).backward();
  }
  for (std::size_t k = 0; k < ddp.parameters().size(); ++k)
    expect_near(ddp.parameters()[k].grad().to_vector<float>(), local_model->parameters()[k].grad().to_vector<float>(),
                "no_sync grad");
  Data later = shard(second, pg->getRank(), pg->getSize());
  torch::nn::functional::cross_entropy(ddp.forward(later.x), later.y).backward();
  for (std::size_t k = 0; k < ddp.parameters().size(); ++k)
    expect_near(ddp.parameters()[k].grad().contiguous().to_vector<float>(),
                reference_model->parameters()[k].grad().to_vector<float>(), "accumulated grad");
}

TEST(DistributedDataParallel, ANonPositiveBucketCapIsRejected) {
  auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
  try {
    torch::nn::parallel::DistributedDataParallel<Mlp> ddp(
        Mlp(), pg, torch::nn::parallel::DistributedDataParallelOptions().bucket_cap_mb(0));
    FAIL();
  } catch (const kiln::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("got 0"), std::string::npos) << e.what();
  }
}

}  // namespace

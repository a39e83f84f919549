// fashion_mnist.cpp's training, data parallel over the processes of an MPI
// job (PyTorch's DistributedDataParallel recipe): every rank builds the same
// model, DistributedDataParallel broadcasts rank 0's weights and averages the
// gradients during backward, and a DistributedRandomSampler gives each rank
// its shard of every epoch's shuffled order. The global batch stays 128
// images per step (128 / ranks on each), so the losses are those of one
// process on the global batch. Rank 0 prints the epoch's loss and accuracy
// over all ranks, then the test set's and its kiln::stats().
//
// Usage: mpirun -np 2 fashion_mnist_ddp [mlp|cnn] [EPOCHS] [DATA_DIR] [MAX_STEPS]
//   (`make train-ddp` adds the flags Open MPI needs on one machine, as root
//   in a container). MAX_STEPS > 0 stops after that many steps of the first
//   epoch and prints each step's global loss instead ("step 3 loss
//   2.123456"), which tests/distributed compares across process counts.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <kiln/c10d.h>
#include <kiln/distributed/data_parallel.h>
#include <kiln/torch.h>

#include "fashion_mnist_common.h"

namespace {

using fashion_mnist::kBatchSize;

// Sums `values` over the ranks (rank 0 prints the totals).
std::vector<double> sum_over_ranks(c10d::ProcessGroup& pg, const std::vector<double>& values) {
  std::vector<torch::Tensor> t{torch::tensor(values, torch::kFloat64)};
  pg.allreduce(t)->wait();
  return t[0].to_vector<double>();
}

template <class Net>
void train_and_test(Net net, int epochs, const std::string& root, std::size_t max_steps) {
  auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
  const auto rank = static_cast<std::size_t>(pg->getRank()), ranks = static_cast<std::size_t>(pg->getSize());
  const bool leader = rank == 0;
  const std::int64_t rank_batch = kBatchSize / static_cast<std::int64_t>(ranks);
  if (rank_batch < 1) throw torch::ValueError("fashion_mnist_ddp: more ranks than images per step");

  torch::nn::parallel::DistributedDataParallel<Net> model(std::move(net), pg);
  torch::optim::SGD optimizer(model.parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  auto train_set = fashion_mnist::dataset(root, torch::data::datasets::MNIST::Mode::kTrain);
  const std::size_t train_size = train_set.size().value();
  const std::size_t steps = (train_size + kBatchSize - 1) / kBatchSize;
  // mpirun may give a rank a pseudo-terminal even when its output goes to a
  // file: a line per report, never rewritten in place.
  constexpr bool kTerminal = false;
  if (leader)
    std::printf("%zu ranks x %lld images per step, %zu steps per epoch\n", ranks, static_cast<long long>(rank_batch),
                steps);

  for (int epoch = 1; epoch <= epochs; ++epoch) {
    // A loader per epoch: its sampler draws the epoch's order.
    torch::data::samplers::DistributedRandomSampler sampler(train_size, ranks, rank);
    sampler.set_epoch(static_cast<std::size_t>(epoch - 1));
    auto train_loader = torch::data::make_data_loader(
        train_set, std::move(sampler), torch::data::DataLoaderOptions().batch_size(rank_batch).workers(1));
    model.module()->train();
    const auto start = std::chrono::steady_clock::now();
    std::size_t step = 0;
    double seen = 0, correct = 0, loss_sum = 0;  // this rank's, since the last report
    std::vector<double> total{0, 0, 0};          // every rank's: loss sum, correct, seen
    for (auto& batch : *train_loader) {
      optimizer.zero_grad();
      torch::Tensor output = model.forward(batch.data);
      torch::Tensor loss = torch::nn::functional::cross_entropy(output, batch.target);
      loss.backward();
      optimizer.step();

      const double n = static_cast<double>(batch.data.size(0));
      loss_sum += loss.item<double>() * n;
      correct += static_cast<double>(output.argmax(1).eq(batch.target).sum().template item<std::int64_t>());
      seen += n;
      ++step;
      if (max_steps > 0) {
        const std::vector<double> s = sum_over_ranks(*pg, {loss_sum, seen});
        if (leader) std::printf("step %zu loss %.6f\n", step, s[0] / s[1]);
        loss_sum = seen = 0;
        if (step == max_steps) return;
        continue;
      }
      // Every rank takes the same steps, so every rank joins these sums.
      if (!fashion_mnist::progress_step(step, steps)) continue;
      const std::vector<double> s = sum_over_ranks(*pg, {loss_sum, correct, seen});
      for (std::size_t i = 0; i < total.size(); ++i) total[i] += s[i];
      loss_sum = correct = seen = 0;
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (leader)
        fashion_mnist::print_progress(kTerminal, epoch, epochs, step, steps, total[0] / total[2], total[1] / total[2],
                                      step / seconds);
    }
  }
  // Every rank holds the same weights; one evaluates them, and shows its
  // counters (the communication ones: bytes, all-reduce time, overlap).
  if (!leader) return;
  fashion_mnist::test(model.module(), root);
  std::cout << torch::stats();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string model = argc > 1 ? argv[1] : "mlp";
  const int epochs = argc > 2 ? std::atoi(argv[2]) : 1;
  const std::string root = argc > 3 ? argv[3] : fashion_mnist::kDefaultRoot;
  const long max_steps = argc > 4 ? std::atol(argv[4]) : 0;
  if ((model != "mlp" && model != "cnn") || epochs < 1 || max_steps < 0) {
    std::fprintf(stderr, "usage: fashion_mnist_ddp [mlp|cnn] [EPOCHS >= 1] [DATA_DIR] [MAX_STEPS >= 0]\n");
    return 2;
  }
  torch::manual_seed(1);
  try {
    if (model == "mlp") train_and_test(Mlp(), epochs, root, static_cast<std::size_t>(max_steps));
    else train_and_test(Cnn(), epochs, root, static_cast<std::size_t>(max_steps));
  } catch (const torch::Error& e) {
    std::fprintf(stderr, "fashion_mnist_ddp: %s\n", e.what());
    return 1;
  }
  return 0;
}

// Trains a classifier on Fashion-MNIST, written exactly as a LibTorch
// program is (only the include differs): an MLP (784-512-512-10) or a small
// CNN (two conv + batch norm + max-pool blocks, a linear head), a data
// loader with a background worker, SGD with momentum, a progress line per
// epoch (loss, accuracy, steps/s), then the test accuracy and the JIT's
// counters. After the first steps the whole training step (forward,
// backward and the optimizer update) runs as compiled code; the counters
// say how many segments and kernels it took.
//
// Usage: fashion_mnist [mlp|cnn] [EPOCHS] [DATA_DIR]
//   mlp by default; EPOCHS defaults to 1; DATA_DIR to
//   /usr/share/datasets/fashion-mnist (Debian's dataset-fashion-mnist
//   package; `make deps` installs it).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include <unistd.h>

#include <kiln/torch.h>

#include "fashion_mnist_common.h"

namespace {

using fashion_mnist::kBatchSize;

// Trains `model` for `epochs` on the training set, then prints its loss and
// accuracy on the test set.
template <class Net>
void train_and_test(Net model, int epochs, const std::string& root) {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  auto train_set = fashion_mnist::dataset(root, torch::data::datasets::MNIST::Mode::kTrain);
  const std::size_t train_size = train_set.size().value();
  auto train_loader = torch::data::make_data_loader<torch::data::samplers::RandomSampler>(
      std::move(train_set), torch::data::DataLoaderOptions().batch_size(kBatchSize).workers(1));
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  const std::size_t steps = (train_size + kBatchSize - 1) / kBatchSize;
  const bool terminal = isatty(STDOUT_FILENO);

  for (int epoch = 1; epoch <= epochs; ++epoch) {
    model->train();
    const auto start = std::chrono::steady_clock::now();
    std::size_t step = 0, seen = 0;
    std::int64_t correct = 0;
    double loss_sum = 0;
    for (auto& batch : *train_loader) {
      torch::Tensor data = batch.data.to(device), target = batch.target.to(device);
      optimizer.zero_grad();
      torch::Tensor output = model->forward(data);
      torch::Tensor loss = torch::nn::functional::cross_entropy(output, target);
      loss.backward();
      optimizer.step();

      loss_sum += loss.item<double>() * static_cast<double>(data.size(0));
      correct += output.argmax(1).eq(target).sum().template item<std::int64_t>();
      seen += static_cast<std::size_t>(data.size(0));
      ++step;
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (terminal || fashion_mnist::progress_step(step, steps))
        fashion_mnist::print_progress(terminal, epoch, epochs, step, steps, loss_sum / seen, double(correct) / seen,
                                      step / seconds);
    }
    if (terminal) std::printf("\n");
  }
  fashion_mnist::test(model, root);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string model = argc > 1 ? argv[1] : "mlp";
  const int epochs = argc > 2 ? std::atoi(argv[2]) : 1;
  const std::string root = argc > 3 ? argv[3] : fashion_mnist::kDefaultRoot;
  if ((model != "mlp" && model != "cnn") || epochs < 1) {
    std::fprintf(stderr, "usage: fashion_mnist [mlp|cnn] [EPOCHS >= 1] [DATA_DIR]\n");
    return 2;
  }
  torch::manual_seed(1);
  try {
    if (model == "mlp") train_and_test(Mlp(), epochs, root);
    else train_and_test(Cnn(), epochs, root);
  } catch (const torch::Error& e) {
    std::fprintf(stderr, "fashion_mnist: %s\n", e.what());
    return 1;
  }
  std::cout << torch::stats();
  return 0;
}

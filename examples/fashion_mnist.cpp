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
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include <unistd.h>

#include <kiln/torch.h>

struct MlpImpl : torch::nn::Module {
  MlpImpl()
      : fc1(register_module("fc1", torch::nn::Linear(784, 512))),
        fc2(register_module("fc2", torch::nn::Linear(512, 512))),
        fc3(register_module("fc3", torch::nn::Linear(512, 10))) {}

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(fc1(x.view({-1, 784})));
    x = torch::relu(fc2(x));
    return fc3(x);
  }

  torch::nn::Linear fc1, fc2, fc3;
};
TORCH_MODULE(Mlp);

struct CnnImpl : torch::nn::Module {
  CnnImpl()
      : conv1(register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 16, 3).padding(1).bias(false)))),
        bn1(register_module("bn1", torch::nn::BatchNorm2d(16))),
        conv2(register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 32, 3).padding(1).bias(false)))),
        bn2(register_module("bn2", torch::nn::BatchNorm2d(32))),
        fc(register_module("fc", torch::nn::Linear(32 * 7 * 7, 10))) {}

  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(bn1(conv1(x))), 2);
    x = torch::max_pool2d(torch::relu(bn2(conv2(x))), 2);
    return fc(x.flatten(1));
  }

  torch::nn::Conv2d conv1;
  torch::nn::BatchNorm2d bn1;
  torch::nn::Conv2d conv2;
  torch::nn::BatchNorm2d bn2;
  torch::nn::Linear fc;
};
TORCH_MODULE(Cnn);

namespace {

// Fashion-MNIST's pixel mean and standard deviation over the training set.
constexpr double kMean = 0.2860, kStd = 0.3530;
constexpr std::int64_t kBatchSize = 128;

// One line, rewritten in place on a terminal: "epoch 1/1 [#####.....]
// 234/468 loss ..."; in a log, a line per tenth of the epoch.
void print_progress(int epoch, int epochs, std::size_t step, std::size_t steps, double loss, double accuracy,
                    double steps_per_second) {
  constexpr int kWidth = 30;
  const int filled = steps ? static_cast<int>(kWidth * step / steps) : kWidth;
  std::string bar(filled, '#');
  bar.resize(kWidth, '.');
  static const bool terminal = isatty(STDOUT_FILENO);
  if (!terminal && step % std::max<std::size_t>(1, steps / 10) != 0 && step != steps) return;
  std::printf("%sepoch %d/%d [%s] %zu/%zu  loss %.4f  accuracy %5.2f%%  %6.1f steps/s%s", terminal ? "\r" : "", epoch,
              epochs, bar.c_str(), step, steps, loss, 100 * accuracy, steps_per_second, terminal ? "" : "\n");
  std::fflush(stdout);
}

// Trains `model` for `epochs` on the training set, then prints its loss and
// accuracy on the test set.
template <class Net>
void train_and_test(Net model, int epochs, const std::string& root) {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  auto train_set = torch::data::datasets::MNIST(root)
                       .map(torch::data::transforms::Normalize<>(kMean, kStd))
                       .map(torch::data::transforms::Stack<>());
  const std::size_t train_size = train_set.size().value();
  auto train_loader = torch::data::make_data_loader<torch::data::samplers::RandomSampler>(
      std::move(train_set), torch::data::DataLoaderOptions().batch_size(kBatchSize).workers(1));
  auto test_set = torch::data::datasets::MNIST(root, torch::data::datasets::MNIST::Mode::kTest)
                      .map(torch::data::transforms::Normalize<>(kMean, kStd))
                      .map(torch::data::transforms::Stack<>());
  const std::size_t test_size = test_set.size().value();
  auto test_loader =
      torch::data::make_data_loader(std::move(test_set), torch::data::DataLoaderOptions().batch_size(1000).workers(1));

  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  const std::size_t steps = (train_size + kBatchSize - 1) / kBatchSize;

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
      print_progress(epoch, epochs, step, steps, loss_sum / seen, double(correct) / seen, step / seconds);
    }
    if (isatty(STDOUT_FILENO)) std::printf("\n");
  }

  model->eval();
  torch::NoGradGuard no_grad;
  std::int64_t correct = 0;
  double loss_sum = 0;
  for (const auto& batch : *test_loader) {
    torch::Tensor output = model->forward(batch.data.to(device));
    loss_sum += torch::nn::functional::cross_entropy(
                    output, batch.target, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                    .item<double>();
    correct += output.argmax(1).eq(batch.target).sum().template item<std::int64_t>();
  }
  std::printf("test: loss %.4f, accuracy %.2f%% (%lld/%zu)\n", loss_sum / test_size,
              100.0 * double(correct) / test_size, static_cast<long long>(correct), test_size);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string model = argc > 1 ? argv[1] : "mlp";
  const int epochs = argc > 2 ? std::atoi(argv[2]) : 1;
  const std::string root = argc > 3 ? argv[3] : "/usr/share/datasets/fashion-mnist";
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

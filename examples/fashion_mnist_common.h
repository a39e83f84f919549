// What both Fashion-MNIST examples (fashion_mnist.cpp, one process, and
// fashion_mnist_ddp.cpp, data parallel over MPI) share: the two models, the
// datasets with their normalization, the progress line and the test pass.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

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

namespace fashion_mnist {

// Fashion-MNIST's pixel mean and standard deviation over the training set.
constexpr double kMean = 0.2860, kStd = 0.3530;
// Images per optimizer step (over all processes, for the data-parallel example).
constexpr std::int64_t kBatchSize = 128;
// Debian's dataset-fashion-mnist package (`make deps` installs it).
inline const char* const kDefaultRoot = "/usr/share/datasets/fashion-mnist";

inline auto dataset(const std::string& root, torch::data::datasets::MNIST::Mode mode) {
  return torch::data::datasets::MNIST(root, mode)
      .map(torch::data::transforms::Normalize<>(kMean, kStd))
      .map(torch::data::transforms::Stack<>());
}

// Whether `step` of `steps` gets a progress line in a log: every tenth of
// the epoch and the last step (a terminal gets one per step, rewritten).
inline bool progress_step(std::size_t step, std::size_t steps) {
  return step % std::max<std::size_t>(1, steps / 10) == 0 || step == steps;
}

// "epoch 1/1 [#####.....] 234/468 loss ...", rewritten in place on a
// terminal, a line of its own in a log.
inline void print_progress(bool terminal, int epoch, int epochs, std::size_t step, std::size_t steps, double loss,
                           double accuracy, double steps_per_second) {
  constexpr int kWidth = 30;
  const int filled = steps ? static_cast<int>(kWidth * step / steps) : kWidth;
  std::string bar(filled, '#');
  bar.resize(kWidth, '.');
  std::printf("%sepoch %d/%d [%s] %zu/%zu  loss %.4f  accuracy %5.2f%%  %6.1f steps/s%s", terminal ? "\r" : "", epoch,
              epochs, bar.c_str(), step, steps, loss, 100 * accuracy, steps_per_second, terminal ? "" : "\n");
  std::fflush(stdout);
}

// Prints the loss and accuracy of `model` on the test set.
template <class Net>
void test(Net& model, const std::string& root) {
  auto test_set = dataset(root, torch::data::datasets::MNIST::Mode::kTest);
  const std::size_t test_size = test_set.size().value();
  auto test_loader =
      torch::data::make_data_loader(std::move(test_set), torch::data::DataLoaderOptions().batch_size(1000).workers(1));
  model->eval();
  torch::NoGradGuard no_grad;
  std::int64_t correct = 0;
  double loss_sum = 0;
  for (const auto& batch : *test_loader) {
    torch::Tensor output = model->forward(batch.data);
    loss_sum += torch::nn::functional::cross_entropy(
                    output, batch.target, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                    .item<double>();
    correct += output.argmax(1).eq(batch.target).sum().template item<std::int64_t>();
  }
  std::printf("test: loss %.4f, accuracy %.2f%% (%lld/%zu)\n", loss_sum / test_size,
              100.0 * double(correct) / test_size, static_cast<long long>(correct), test_size);
}

}  // namespace fashion_mnist

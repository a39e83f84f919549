// kiln models the training benchmarks share, written with kiln::nn as a
// LibTorch user writes them (their LibTorch twins are in bench/peers/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace {

// The MLP of training_bench.cpp and memory_bench.cpp.
const std::vector<std::int64_t> kMlpDims = {784, 512, 512, 10};

// Floating-point operations of one training step of the MLP: the forward
// products, and backward each weight's gradient and, past the first layer,
// the input's (the batch needs none): 411 MFLOP at batch 128.
inline double mlp_train_flops(std::int64_t batch) {
  double flops = 0;
  for (std::size_t i = 0; i + 1 < kMlpDims.size(); ++i)
    flops += (i == 0 ? 2 : 3) * 2.0 * double(batch * kMlpDims[i] * kMlpDims[i + 1]);
  return flops;
}

// Linear layers with a ReLU between each two.
struct MlpImpl : kiln::nn::Module {
  explicit MlpImpl(const std::vector<std::int64_t>& dims = kMlpDims) {
    for (std::size_t i = 0; i + 1 < dims.size(); ++i)
      layers.push_back(register_module("fc" + std::to_string(i + 1), kiln::nn::Linear(dims[i], dims[i + 1])));
  }
  kiln::Tensor forward(kiln::Tensor h) {
    for (std::size_t i = 0; i < layers.size(); ++i) {
      h = layers[i](h);
      if (i + 1 < layers.size()) h = kiln::relu(h);
    }
    return h;
  }
  std::vector<kiln::nn::Linear> layers;
};
KILN_MODULE(Mlp);

// The CNN of training_bench.cpp and scaleout_bench.cpp, as
// torch_peer::cnn_classifier_train: 3x3 convolutions keeping the image
// size, without bias (batch norm follows).
inline kiln::nn::Conv2dOptions conv_options(std::int64_t in, std::int64_t out) {
  return kiln::nn::Conv2dOptions(in, out, 3).padding(1).bias(false);
}

struct CnnImpl : kiln::nn::Module {
  CnnImpl()
      : conv1(register_module("conv1", kiln::nn::Conv2d(conv_options(1, 16)))),
        bn1(register_module("bn1", kiln::nn::BatchNorm2d(16))),
        conv2(register_module("conv2", kiln::nn::Conv2d(conv_options(16, 32)))),
        bn2(register_module("bn2", kiln::nn::BatchNorm2d(32))),
        fc(register_module("fc", kiln::nn::Linear(32 * 7 * 7, 10))) {}
  kiln::Tensor forward(kiln::Tensor x) {
    x = kiln::max_pool2d(kiln::relu(bn1(conv1(x))), 2);
    x = kiln::max_pool2d(kiln::relu(bn2(conv2(x))), 2);
    return fc(x.flatten(1));
  }
  kiln::nn::Conv2d conv1;
  kiln::nn::BatchNorm2d bn1;
  kiln::nn::Conv2d conv2;
  kiln::nn::BatchNorm2d bn2;
  kiln::nn::Linear fc;
};
KILN_MODULE(Cnn);

// Pre-norm residual MLP blocks, x + W2 relu(W1 layer_norm(x)), then a
// linear head: torch_peer::residual_stack_classifier_train's program.
struct ResidualStackImpl : kiln::nn::Module {
  ResidualStackImpl(int blocks, std::int64_t width, std::int64_t hidden, std::int64_t classes) {
    for (int b = 0; b < blocks; ++b) {
      const std::string n = std::to_string(b);
      norms.push_back(register_module("norm" + n, kiln::nn::LayerNorm(kiln::nn::LayerNormOptions({width}))));
      ups.push_back(register_module("up" + n, kiln::nn::Linear(width, hidden)));
      downs.push_back(register_module("down" + n, kiln::nn::Linear(hidden, width)));
    }
    head = register_module("head", kiln::nn::Linear(width, classes));
  }
  kiln::Tensor forward(kiln::Tensor x) {
    for (std::size_t b = 0; b < ups.size(); ++b) x = x + downs[b](kiln::relu(ups[b](norms[b](x))));
    return head(x);
  }
  std::vector<kiln::nn::LayerNorm> norms;
  std::vector<kiln::nn::Linear> ups, downs;
  kiln::nn::Linear head{nullptr};
};
KILN_MODULE(ResidualStack);

}  // namespace

// LibTorch side of the training-step peers of bench/peers/torch_peer.h: the
// step written with torch::nn and torch::optim, as a LibTorch user writes it.
// C++17, like torch_peer.cpp, and kept apart from it because <torch/torch.h>
// is the costly header.
#include "torch_peer.h"

#include <torch/torch.h>

#include <cstring>
#include <utility>

namespace torch_peer {
namespace {

at::Tensor tensor(const Floats& v, at::IntArrayRef sizes) {
  return at::from_blob(const_cast<float*>(v.data()), sizes, at::kFloat).clone();
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(Optim optim, std::vector<at::Tensor> params) {
  if (optim == Optim::adam) return std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(1e-3));
  return std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(0.01).momentum(0.9));
}

class ClassifierTrainOp final : public Op {
 public:
  ClassifierTrainOp(at::Tensor x, at::Tensor labels, const Mlp& net, Optim optim, int check_steps)
      : x_(std::move(x)), labels_(std::move(labels)), optim_(optim), check_steps_(check_steps) {
    for (std::size_t i = 0; i + 1 < net.dims.size(); ++i) {
      layers_->push_back(torch::nn::Linear(net.dims[i], net.dims[i + 1]));
      initial_.push_back(tensor(net.weights[i], {net.dims[i + 1], net.dims[i]}));
      initial_.push_back(tensor(net.biases[i], {net.dims[i + 1]}));
    }
    reset();
  }
  void run() override {
    optimizer_->zero_grad();
    at::Tensor h = x_;
    for (std::size_t i = 0; i < layers_->size(); ++i) {
      h = layers_[i]->as<torch::nn::Linear>()->forward(h);
      if (i + 1 < layers_->size()) h = torch::relu(h);
    }
    torch::nn::functional::cross_entropy(h, labels_).backward();
    optimizer_->step();
  }
  Floats result() override {
    reset();
    for (int s = 0; s < check_steps_; ++s) run();
    Floats out;
    for (const at::Tensor& p : layers_->parameters()) {
      at::Tensor c = p.detach().contiguous();
      out.insert(out.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    }
    return out;
  }

 private:
  // The initial weights and a fresh optimizer.
  void reset() {
    {
      torch::NoGradGuard no_grad;
      auto params = layers_->parameters();
      for (std::size_t k = 0; k < params.size(); ++k) params[k].copy_(initial_[k]);
    }
    optimizer_ = make_optimizer(optim_, layers_->parameters());
  }

  at::Tensor x_, labels_;
  torch::nn::Sequential layers_;
  std::vector<at::Tensor> initial_;
  Optim optim_;
  int check_steps_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

}  // namespace

std::unique_ptr<Op> mlp_classifier_train(const Floats& x, const std::vector<std::int64_t>& labels, std::int64_t batch,
                                         const Mlp& net, Optim optim, int check_steps) {
  at::Tensor l = at::empty({batch}, at::kLong);
  std::memcpy(l.data_ptr<std::int64_t>(), labels.data(), sizeof(std::int64_t) * labels.size());
  return std::make_unique<ClassifierTrainOp>(tensor(x, {batch, net.dims.front()}), l, net, optim, check_steps);
}

}  // namespace torch_peer

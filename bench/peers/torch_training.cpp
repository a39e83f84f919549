// LibTorch side of the training-step peers of bench/peers/torch_peer.h: the
// models written with torch::nn and torch::optim, as a LibTorch user writes
// them. C++17, like torch_peer.cpp, and kept apart from it because
// <torch/torch.h> is the costly header.
#include "torch_peer.h"

#include <torch/torch.h>

#include <cstring>
#include <utility>

namespace torch_peer {
namespace {

std::unique_ptr<torch::optim::Optimizer> make_optimizer(Optim optim, std::vector<at::Tensor> params) {
  if (optim == Optim::adam) return std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(1e-3));
  return std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(0.01).momentum(0.9));
}

// Copies `values` (parameters() order) into the model's parameters.
void set_parameters(torch::nn::Module& model, const std::vector<Floats>& values) {
  torch::NoGradGuard no_grad;
  auto params = model.parameters();
  if (params.size() != values.size()) throw std::invalid_argument("torch_peer: parameter count differs");
  for (std::size_t k = 0; k < params.size(); ++k) {
    if (static_cast<std::size_t>(params[k].numel()) != values[k].size())
      throw std::invalid_argument("torch_peer: parameter size differs");
    std::memcpy(params[k].data_ptr<float>(), values[k].data(), sizeof(float) * values[k].size());
  }
}

at::Tensor labels_tensor(const std::vector<std::int64_t>& labels) {
  at::Tensor l = at::empty({static_cast<std::int64_t>(labels.size())}, at::kLong);
  std::memcpy(l.data_ptr<std::int64_t>(), labels.data(), sizeof(std::int64_t) * labels.size());
  return l;
}

Floats flat(const at::Tensor& t) {
  at::Tensor c = t.detach().contiguous();
  return Floats(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

torch::nn::Sequential cnn() {
  namespace nn = torch::nn;
  auto conv = [](std::int64_t in, std::int64_t out) { return nn::Conv2dOptions(in, out, 3).padding(1).bias(false); };
  return nn::Sequential(nn::Conv2d(conv(1, 16)), nn::BatchNorm2d(16), nn::ReLU(), nn::MaxPool2d(2),
                        nn::Conv2d(conv(16, 32)), nn::BatchNorm2d(32), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(),
                        nn::Linear(32 * 7 * 7, 10));
}

// x + down(relu(up(norm(x)))): one block of residual_stack_classifier_train.
struct PreNormBlockImpl : torch::nn::Module {
  PreNormBlockImpl(std::int64_t width, std::int64_t hidden)
      : norm(register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})))),
        up(register_module("up", torch::nn::Linear(width, hidden))),
        down(register_module("down", torch::nn::Linear(hidden, width))) {}
  at::Tensor forward(const at::Tensor& x) { return x + down(torch::relu(up(norm(x)))); }
  torch::nn::LayerNorm norm;
  torch::nn::Linear up, down;
};
TORCH_MODULE(PreNormBlock);

class ClassifierTrainOp final : public Op {
 public:
  ClassifierTrainOp(at::Tensor x, at::Tensor labels, torch::nn::Sequential model, std::vector<Floats> initial,
                    Optim optim, int check_steps)
      : x_(std::move(x)),
        labels_(std::move(labels)),
        model_(std::move(model)),
        initial_(std::move(initial)),
        optim_(optim),
        check_steps_(check_steps) {
    reset();
  }
  void run() override {
    optimizer_->zero_grad();
    torch::nn::functional::cross_entropy(model_->forward(x_), labels_).backward();
    optimizer_->step();
  }
  Floats result() override {
    reset();
    for (int s = 0; s < check_steps_; ++s) run();
    Floats out;
    for (const at::Tensor& p : model_->parameters()) {
      Floats v = flat(p);
      out.insert(out.end(), v.begin(), v.end());
    }
    return out;
  }

 private:
  // The initial weights and a fresh optimizer.
  void reset() {
    set_parameters(*model_, initial_);
    optimizer_ = make_optimizer(optim_, model_->parameters());
  }

  at::Tensor x_, labels_;
  torch::nn::Sequential model_;
  std::vector<Floats> initial_;
  Optim optim_;
  int check_steps_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

class InferOp final : public Op {
 public:
  InferOp(at::Tensor x, torch::nn::Sequential model) : x_(std::move(x)), model_(std::move(model)) { model_->eval(); }
  void run() override {
    c10::InferenceMode guard;
    last_ = model_->forward(x_);
  }
  Floats result() override { return flat(last_); }

 private:
  at::Tensor x_, last_;
  torch::nn::Sequential model_;
};

at::Tensor images(const Floats& x, std::int64_t batch) {
  return at::from_blob(const_cast<float*>(x.data()), {batch, 1, 28, 28}, at::kFloat).clone();
}

}  // namespace

std::unique_ptr<Op> mlp_classifier_train(const Floats& x, const std::vector<std::int64_t>& labels, std::int64_t batch,
                                         const Mlp& net, Optim optim, int check_steps) {
  torch::nn::Sequential model;
  std::vector<Floats> initial;
  for (std::size_t i = 0; i + 1 < net.dims.size(); ++i) {
    if (i > 0) model->push_back(torch::nn::ReLU());
    model->push_back(torch::nn::Linear(net.dims[i], net.dims[i + 1]));
    initial.push_back(net.weights[i]);
    initial.push_back(net.biases[i]);
  }
  at::Tensor in = at::from_blob(const_cast<float*>(x.data()), {batch, net.dims.front()}, at::kFloat).clone();
  return std::make_unique<ClassifierTrainOp>(in, labels_tensor(labels), model, initial, optim, check_steps);
}

std::unique_ptr<Op> cnn_classifier_train(const Floats& x, const std::vector<std::int64_t>& labels, std::int64_t batch,
                                         const std::vector<Floats>& params, Optim optim, int check_steps) {
  return std::make_unique<ClassifierTrainOp>(images(x, batch), labels_tensor(labels), cnn(), params, optim,
                                             check_steps);
}

std::unique_ptr<Op> residual_stack_classifier_train(const Floats& x, const std::vector<std::int64_t>& labels,
                                                    std::int64_t batch, const ResidualStack& shape, Optim optim,
                                                    int check_steps) {
  torch::nn::Sequential model;
  for (int b = 0; b < shape.blocks; ++b) model->push_back(PreNormBlock(shape.width, shape.hidden));
  model->push_back(torch::nn::Linear(shape.width, shape.classes));
  std::vector<Floats> initial;
  for (const at::Tensor& p : model->parameters()) initial.push_back(flat(p));
  at::Tensor in = at::from_blob(const_cast<float*>(x.data()), {batch, shape.width}, at::kFloat).clone();
  return std::make_unique<ClassifierTrainOp>(in, labels_tensor(labels), model, initial, optim, check_steps);
}

std::unique_ptr<Op> cnn_classifier_infer(const Floats& x, std::int64_t batch, const std::vector<Floats>& params) {
  torch::nn::Sequential model = cnn();
  set_parameters(*model, params);
  return std::make_unique<InferOp>(images(x, batch), model);
}

}  // namespace torch_peer

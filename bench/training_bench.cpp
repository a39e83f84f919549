// Whole training steps beside LibTorch eager, both written as their users
// write them: an MLP 784-512-512-10 of nn::Linear modules, cross-entropy on
// class labels, loss.backward() and an optimizer step (SGD with momentum, or
// Adam), batch 128.
//
// A row's run() is one step (zero_grad, forward, loss, backward, step) with
// every parameter materialized at its end; the check starts every
// implementation from the same weights with a fresh optimizer and compares
// the parameters after a few steps. kiln_tier1 is the steady state: the step
// compiled by the JIT in the background, with no change to the loop.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "bench_util.h"
#include "peers/torch_peer.h"
#include "workload.h"

namespace {

using torch_peer::Optim;

constexpr int kCheckSteps = 5;
const std::vector<std::int64_t> kMlpDims = {784, 512, 512, 10};

std::string optim_name(Optim optim) { return optim == Optim::adam ? "adam" : "sgd_momentum"; }

std::unique_ptr<kiln::optim::Optimizer> make_optimizer(Optim optim, std::vector<kiln::Tensor> params) {
  if (optim == Optim::adam) return std::make_unique<kiln::optim::Adam>(params, kiln::optim::AdamOptions(1e-3));
  return std::make_unique<kiln::optim::SGD>(params, kiln::optim::SGDOptions(0.01).momentum(0.9));
}

// The kiln program: a Sequential-free module of Linear layers, so that it is
// the same program a LibTorch user ports.
struct MlpImpl : kiln::nn::Module {
  MlpImpl() {
    for (std::size_t i = 0; i + 1 < kMlpDims.size(); ++i)
      layers.push_back(register_module("fc" + std::to_string(i + 1), kiln::nn::Linear(kMlpDims[i], kMlpDims[i + 1])));
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

class KilnClassifierTrain {
 public:
  KilnClassifierTrain(kiln::Tensor x, kiln::Tensor labels, std::vector<kiln::Tensor> initial, Optim optim)
      : x_(std::move(x)), labels_(std::move(labels)), initial_(std::move(initial)), optim_(optim) {
    reset();
  }
  void run() {
    optimizer_->zero_grad();
    kiln::nn::functional::cross_entropy(model_->forward(x_), labels_).backward();
    optimizer_->step();
    for (const kiln::Tensor& p : model_->parameters()) benchmark::DoNotOptimize(p.data_ptr<float>());
  }
  Floats result() {
    reset();
    for (int s = 0; s < kCheckSteps; ++s) run();
    Floats out;
    for (const kiln::Tensor& p : model_->parameters()) {
      Floats v = p.detach().contiguous().to_vector<float>();
      out.insert(out.end(), v.begin(), v.end());
    }
    return out;
  }

 private:
  void reset() {
    {
      kiln::NoGradGuard no_grad;
      std::vector<kiln::Tensor> params = model_->parameters();
      for (std::size_t k = 0; k < params.size(); ++k) params[k].copy_(initial_[k]);
    }
    optimizer_ = make_optimizer(optim_, model_->parameters());
  }

  kiln::Tensor x_, labels_;
  std::vector<kiln::Tensor> initial_;
  Optim optim_;
  Mlp model_;
  std::unique_ptr<kiln::optim::Optimizer> optimizer_;
};

Impl kiln_train(Tier tier, std::shared_ptr<KilnClassifierTrain> t) {
  return {tier == Tier::tier0 ? "kiln_tier0" : "kiln_tier1", tier, [t] { t->run(); }, [t] { return t->result(); }};
}

std::shared_ptr<Workload> mlp_classifier(std::int64_t batch, Optim optim) {
  auto w = std::make_shared<Workload>();
  torch_peer::Mlp net{kMlpDims, {}, {}};
  std::vector<kiln::Tensor> initial;
  double flops = 0;
  for (std::size_t i = 0; i + 1 < kMlpDims.size(); ++i) {
    const double bound = 1.0 / std::sqrt(double(kMlpDims[i]));  // LibTorch's Linear initialization range
    initial.push_back((kiln::rand({kMlpDims[i + 1], kMlpDims[i]}) * 2 - 1) * bound);
    initial.push_back((kiln::rand({kMlpDims[i + 1]}) * 2 - 1) * bound);
    net.weights.push_back(initial[initial.size() - 2].to_vector<float>());
    net.biases.push_back(initial.back().to_vector<float>());
    flops += 3 * 2.0 * double(batch * kMlpDims[i] * kMlpDims[i + 1]);  // forward, and two products backward
  }
  kiln::Tensor x = kiln::randn({batch, kMlpDims.front()});
  kiln::Tensor labels = kiln::randint(kMlpDims.back(), {batch});
  const Floats xv = x.to_vector<float>();
  const std::vector<std::int64_t> lv = labels.to_vector<std::int64_t>();
  w->name = "train_step_mlp_784-512-512-10_" + optim_name(optim) + "/batch_" + std::to_string(batch);
  for (Tier tier : {Tier::tier0, Tier::tier1})
    w->impls.push_back(kiln_train(tier, std::make_shared<KilnClassifierTrain>(x, labels, initial, optim)));
  w->impls.push_back(peer_impl("torch_eager", torch_peer::mlp_classifier_train(xv, lv, batch, net, optim, kCheckSteps)));
  w->reference = 2;
  // Parameters after five steps; their updates are sums of up to 784 * 128
  // products in different orders (Adam's divides by small second moments).
  w->tol = {1e-3, 1e-5};
  w->flops = flops;
  return w;
}

void register_all() {
  const std::vector<int> both = {1, 2};
  for (Optim optim : {Optim::sgd_momentum, Optim::adam})
    add_rows(mlp_classifier(128, optim), both, benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  g_peer_threads = torch_peer::set_threads;
  benchmark::AddCustomContext("torch", torch_peer::describe());
  benchmark::AddCustomContext("kiln_default_threads", std::to_string(kiln::get_num_threads()));
  register_all();
  return workload_main(argc, argv);
}

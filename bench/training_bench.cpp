// Whole training steps beside LibTorch eager, both written as their users
// write them: an MLP 784-512-512-10 of nn::Linear modules (batch 128) and a
// small CNN of two Conv2d + BatchNorm2d + max-pool blocks and a Linear head
// (batch 32), cross-entropy on class labels, loss.backward() and an
// optimizer step (SGD with momentum, or Adam); and the CNN's inference in
// eval mode at batch 1 and 32.
//
// A row's run() is one step (zero_grad, forward, loss, backward, step) with
// every parameter materialized at its end; the check starts every
// implementation from the same weights with a fresh optimizer and compares
// the parameters after a few steps. kiln_tier1 is the steady state: the step
// compiled by the JIT in the background, with no change to the loop;
// kiln_compile the step as a kiln::compile'd function of the batch (with
// Adam, whose numbers change every step, it keeps running its body).
//
// train_steady/mlp_sgd_momentum/cold_cache: time to steady state. A
// fresh process with an empty kernel cache runs 60 steps of the MLP with
// SGD on kiln (JIT on, compiling in the background while it trains), then
// 60 on LibTorch; counters: each side's first step, first 10 steps and
// steady step (median of the last 10), and the step from which kiln stays
// within 1.2x of its steady time.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "bench_util.h"
#include "kiln_models.h"
#include "peers/torch_peer.h"
#include "torch_workload.h"
#include "workload.h"

namespace {

using torch_peer::Optim;

constexpr int kCheckSteps = 5;

std::string optim_name(Optim optim) { return optim == Optim::adam ? "adam" : "sgd_momentum"; }

std::unique_ptr<kiln::optim::Optimizer> make_optimizer(Optim optim, std::vector<kiln::Tensor> params) {
  if (optim == Optim::adam) return std::make_unique<kiln::optim::Adam>(params, kiln::optim::AdamOptions(1e-3));
  return std::make_unique<kiln::optim::SGD>(params, kiln::optim::SGDOptions(0.01).momentum(0.9));
}

std::vector<Floats> values_of(const std::vector<kiln::Tensor>& tensors) {
  std::vector<Floats> out;
  for (const kiln::Tensor& t : tensors) out.push_back(t.detach().contiguous().to_vector<float>());
  return out;
}

template <class Model>
class KilnClassifierTrain {
 public:
  // `compiled`: the step as a kiln::compile'd function of the batch, with
  // the model and the optimizer as its state.
  KilnClassifierTrain(kiln::Tensor x, kiln::Tensor labels, std::vector<kiln::Tensor> initial, Optim optim,
                      bool compiled)
      : x_(std::move(x)), labels_(std::move(labels)), initial_(std::move(initial)), optim_(optim) {
    reset();
    auto step = [this](const kiln::Tensor& x, const kiln::Tensor& labels) {
      optimizer_->zero_grad();
      kiln::Tensor loss = kiln::nn::functional::cross_entropy(model_->forward(x), labels);
      loss.backward();
      optimizer_->step();
      return loss;
    };
    if (compiled) step_ = kiln::compile(step);
    else step_ = step;
  }
  void run() {
    step_(x_, labels_);
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
  Model model_;
  std::unique_ptr<kiln::optim::Optimizer> optimizer_;
  std::function<kiln::Tensor(const kiln::Tensor&, const kiln::Tensor&)> step_;
};

// How far parameters after kCheckSteps steps may differ from LibTorch's.
// Adam divides each update by the root of its second moment: where a
// gradient is rounding noise (a weight that barely matters), the update is
// still up to the learning rate, in a direction the noise decides; the
// absolute tolerance allows 5% of one step there.
Tolerance training_tolerance(Optim optim) { return {1e-3, optim == Optim::adam ? 5e-5 : 1e-5}; }

// kiln_tier0, kiln_tier1 and kiln_compile rows of a model's training step.
template <class Model>
std::vector<Impl> kiln_trains(const kiln::Tensor& x, const kiln::Tensor& labels,
                              const std::vector<kiln::Tensor>& initial, Optim optim) {
  std::vector<Impl> out;
  for (const char* name : {"kiln_tier0", "kiln_tier1", "kiln_compile"}) {
    const std::string n = name;
    auto t = std::make_shared<KilnClassifierTrain<Model>>(x, labels, initial, optim, n == "kiln_compile");
    out.push_back({n, n == "kiln_tier0" ? Tier::tier0 : Tier::tier1, [t] { t->run(); }, [t] { return t->result(); }});
  }
  return out;
}

std::shared_ptr<Workload> mlp_classifier(std::int64_t batch, Optim optim) {
  auto w = std::make_shared<Workload>();
  torch_peer::Mlp net{kMlpDims, {}, {}};
  std::vector<kiln::Tensor> initial;
  for (std::size_t i = 0; i + 1 < kMlpDims.size(); ++i) {
    const double bound = 1.0 / std::sqrt(double(kMlpDims[i]));  // LibTorch's Linear initialization range
    initial.push_back((kiln::rand({kMlpDims[i + 1], kMlpDims[i]}) * 2 - 1) * bound);
    initial.push_back((kiln::rand({kMlpDims[i + 1]}) * 2 - 1) * bound);
    net.weights.push_back(initial[initial.size() - 2].to_vector<float>());
    net.biases.push_back(initial.back().to_vector<float>());
  }
  kiln::Tensor x = kiln::randn({batch, kMlpDims.front()});
  kiln::Tensor labels = kiln::randint(kMlpDims.back(), {batch});
  const Floats xv = x.to_vector<float>();
  const std::vector<std::int64_t> lv = labels.to_vector<std::int64_t>();
  w->name = "train_step_mlp_784-512-512-10_" + optim_name(optim) + "/batch_" + std::to_string(batch);
  w->impls = kiln_trains<Mlp>(x, labels, initial, optim);
  w->impls.push_back(
      peer_impl("torch_eager", torch_peer::mlp_classifier_train(xv, lv, batch, net, optim, kCheckSteps)));
  w->reference = 3;
  // Parameters after five steps; their updates are sums of up to 784 * 128
  // products in different orders.
  w->tol = training_tolerance(optim);
  w->flops = mlp_train_flops(batch);
  return w;
}

// The CNN's own initialization (LibTorch's: Kaiming-uniform convolutions and
// head, batch norm at ones and zeros), handed to LibTorch.
std::vector<kiln::Tensor> cnn_initial() {
  std::vector<kiln::Tensor> out;
  for (const kiln::Tensor& p : Cnn()->parameters()) out.push_back(p.detach().clone());
  return out;
}

// Multiply-adds of the CNN's forward per image: two 3x3 convolutions and the head.
constexpr double kCnnFirstConvFlops = 2.0 * 28 * 28 * 16 * 9;
constexpr double kCnnForwardFlops = kCnnFirstConvFlops + 2.0 * (14 * 14 * 32 * 16 * 9 + 1568 * 10);

std::shared_ptr<Workload> cnn_classifier(std::int64_t batch, Optim optim) {
  auto w = std::make_shared<Workload>();
  std::vector<kiln::Tensor> initial = cnn_initial();
  kiln::Tensor x = kiln::randn({batch, 1, 28, 28});
  kiln::Tensor labels = kiln::randint(10, {batch});
  w->name = "train_step_cnn_" + optim_name(optim) + "/batch_" + std::to_string(batch);
  w->impls = kiln_trains<Cnn>(x, labels, initial, optim);
  w->impls.push_back(peer_impl("torch_eager",
                               torch_peer::cnn_classifier_train(x.to_vector<float>(), labels.to_vector<std::int64_t>(),
                                                                batch, values_of(initial), optim, kCheckSteps)));
  w->reference = 3;
  // Parameters after five steps; batch norm divides by batch statistics.
  w->tol = training_tolerance(optim);
  // Forward, and backward both products of each layer but the first
  // convolution's input gradient (the images need none).
  w->flops = (3 * kCnnForwardFlops - kCnnFirstConvFlops) * double(batch);
  return w;
}

std::shared_ptr<Workload> cnn_inference(std::int64_t batch) {
  auto w = std::make_shared<Workload>();
  std::vector<kiln::Tensor> initial = cnn_initial();
  Cnn model;
  {
    kiln::NoGradGuard no_grad;
    std::vector<kiln::Tensor> params = model->parameters();
    for (std::size_t k = 0; k < params.size(); ++k) params[k].copy_(initial[k]);
  }
  model->eval();
  kiln::Tensor x = kiln::randn({batch, 1, 28, 28});
  w->name = "infer_cnn/batch_" + std::to_string(batch);
  for (Tier tier : {Tier::tier0, Tier::tier1})
    w->impls.push_back(kiln_impl(tier, [model, x]() mutable {
      kiln::InferenceMode guard;
      return model->forward(x);
    }));
  w->impls.push_back(
      peer_impl("torch_eager", torch_peer::cnn_classifier_infer(x.to_vector<float>(), batch, values_of(initial))));
  w->reference = 2;
  w->tol = {1e-4, 1e-5};
  w->flops = kCnnForwardFlops * double(batch);
  return w;
}

// ---- time to steady state ------------------------------------------------------------

constexpr int kSteadySteps = 60;

template <class Step>
std::vector<double> step_times_ms(Step&& step) {
  std::vector<double> ms;
  for (int s = 0; s < kSteadySteps; ++s) {
    const auto start = std::chrono::steady_clock::now();
    step();
    ms.push_back(since(start) * 1e3);
  }
  return ms;
}

// The child: prints "name=value ..." for the row (run_child parses it).
int steady_child() {
  kiln::jit::set_enabled(true);
  std::shared_ptr<Workload> w = mlp_classifier(128, Optim::sgd_momentum);
  const std::vector<double> kiln_ms = step_times_ms(w->impls[1].run);  // kiln_tier1, from its first step
  const std::vector<double> torch_ms = step_times_ms(w->impls[3].run);
  auto steady = [](const std::vector<double>& ms) { return median(std::vector<double>(ms.end() - 10, ms.end())); };
  auto first10 = [](const std::vector<double>& ms) { return std::accumulate(ms.begin(), ms.begin() + 10, 0.0); };
  const double kiln_steady = steady(kiln_ms);
  int settled = kSteadySteps;
  while (settled > 0 && kiln_ms[settled - 1] <= 1.2 * kiln_steady) --settled;
  std::fprintf(stderr, "\nTime to steady state: MLP SGD training step, fresh process, cold kernel cache\n%5s %9s %9s\n",
               "step", "kiln ms", "torch ms");
  for (int s = 0; s < kSteadySteps; ++s)
    if (s < 20 || s % 10 == 9) std::fprintf(stderr, "%5d %9.2f %9.2f\n", s, kiln_ms[s], torch_ms[s]);
  std::printf("kiln_first_ms=%.6g kiln_first10_ms=%.6g kiln_steady_ms=%.6g kiln_steady_from_step=%d "
              "torch_first_ms=%.6g torch_first10_ms=%.6g torch_steady_ms=%.6g compiles=%llu\n",
              kiln_ms[0], first10(kiln_ms), kiln_steady, settled, torch_ms[0], first10(torch_ms), steady(torch_ms),
              static_cast<unsigned long long>(kiln::stats().jit.compiles_done));
  return 0;
}

std::string g_cache;  // the empty kernel cache of the steady-state child, removed at exit

void steady_row(benchmark::State& state) {
  std::map<std::string, double> r;
  for (auto _ : state) {
    r = run_child("KILN_CACHE_DIR='" + g_cache + "'", "--kiln-steady-child");
    state.SetIterationTime(r["kiln_steady_ms"] / 1e3);
  }
  put_counters(state, r);
}

void register_all() {
  const std::vector<int> both = {1, 2};
  for (Optim optim : {Optim::sgd_momentum, Optim::adam}) {
    add_rows(mlp_classifier(128, optim), both, benchmark::kMillisecond);
    add_rows(cnn_classifier(32, optim), both, benchmark::kMillisecond);
  }
  for (std::int64_t batch : {1, 32}) add_rows(cnn_inference(batch), both, benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("train_steady/mlp_sgd_momentum/cold_cache", steady_row)
      ->Iterations(1)
      ->Repetitions(1)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

void remove_cache() {
  std::error_code ignored;
  std::filesystem::remove_all(g_cache, ignored);
}

}  // namespace

int main(int argc, char** argv) {
  use_torch_peer();
  if (argc == 2 && std::strcmp(argv[1], "--kiln-steady-child") == 0) return steady_child();
  char tmpl[] = "/tmp/kiln-train-cache-XXXXXX";
  if (!mkdtemp(tmpl)) die("mkdtemp failed");
  g_cache = tmpl;
  std::atexit(remove_cache);
  register_all();
  return workload_main(argc, argv);
}

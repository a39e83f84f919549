// Training steps beside LibTorch eager with autograd on: forward + backward
// of the MLP 784-512-512-10 (batch 128, MSE loss) and of a 10-op
// elementwise chain on 1M floats, and the cost autograd adds to recording
// an op (32 multiplications on 8 floats, with and without requires_grad;
// the time/op counter).
//
// A kiln step resets the gradients (to undefined, as zero_grad does),
// computes the loss, runs backward and reads every gradient; the check
// compares all gradients with LibTorch's. kiln_tier1 is the steady state:
// the step's segment compiled (the compiled_groups/iter counter).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "bench_util.h"
#include "kiln_models.h"
#include "peers/torch_peer.h"
#include "torch_workload.h"
#include "workload.h"

namespace {

kiln::Tensor materialized(kiln::Tensor t) {
  t.data_ptr<float>();
  return t;
}

Floats values(const kiln::Tensor& t) { return t.contiguous().to_vector<float>(); }

using Leaves = std::vector<kiln::Tensor>;
using LossFn = std::function<kiln::Tensor(const Leaves&)>;

// One kiln training step as an implementation: run() resets the gradients,
// runs `step` (loss and backward) and materializes every gradient;
// result() is the gradients.
Impl kiln_step(Tier tier, std::string name, Leaves leaves, std::function<void(const Leaves&)> step) {
  for (kiln::Tensor& l : leaves) l.requires_grad_(true);
  return {std::move(name), tier,
          [leaves, step] {
            for (const kiln::Tensor& l : leaves) l.mutable_grad() = kiln::Tensor();
            step(leaves);
            for (const kiln::Tensor& l : leaves) benchmark::DoNotOptimize(l.grad().data_ptr<float>());
          },
          [leaves] {
            Floats out;
            for (const kiln::Tensor& l : leaves) {
              Floats g = values(l.grad());
              out.insert(out.end(), g.begin(), g.end());
            }
            return out;
          }};
}

Leaves own_copies(const Leaves& leaves) {
  Leaves own;
  for (const kiln::Tensor& l : leaves) own.push_back(materialized(l.clone()));
  return own;
}

// Both tiers of a step, and the step as a kiln::compile'd function (traced
// once, then replayed into the gradients); each has its own leaves (their
// gradients are what the check reads). `compiled` calls a compiled step
// (loss and backward) with the leaves as arguments.
std::vector<Impl> kiln_steps(const Leaves& leaves, const LossFn& loss, const std::function<void(const Leaves&)>& compiled) {
  auto eager = [loss](const Leaves& p) { loss(p).backward(); };
  return {kiln_step(Tier::tier0, "kiln_tier0", own_copies(leaves), eager),
          kiln_step(Tier::tier1, "kiln_tier1", own_copies(leaves), eager),
          kiln_step(Tier::tier1, "kiln_compile", own_copies(leaves), compiled)};
}

// ---- MLP training step ---------------------------------------------------------------

std::shared_ptr<Workload> mlp_train(std::int64_t batch) {
  auto w = std::make_shared<Workload>();
  std::vector<kiln::Tensor> params;
  torch_peer::Mlp net{kMlpDims, {}, {}};
  for (std::size_t i = 0; i + 1 < kMlpDims.size(); ++i) {
    const double scale = 1.0 / std::sqrt(double(kMlpDims[i]));
    params.push_back(materialized(scale * kiln::randn({kMlpDims[i + 1], kMlpDims[i]})));
    params.push_back(materialized(0.1 * kiln::randn({kMlpDims[i + 1]})));
    net.weights.push_back(values(params[params.size() - 2]));
    net.biases.push_back(values(params.back()));
  }
  kiln::Tensor x = materialized(kiln::randn({batch, kMlpDims.front()}));
  kiln::Tensor target = materialized(kiln::randn({batch, kMlpDims.back()}));
  w->name = "train_mlp_784-512-512-10/batch_" + std::to_string(batch);
  auto loss = [](const kiln::Tensor& x, const kiln::Tensor& target, const Leaves& p) {
    kiln::Tensor h = x;
    for (std::size_t i = 0; i < p.size(); i += 2) {
      h = kiln::nn::functional::linear(h, p[i], p[i + 1]);
      if (i + 2 < p.size()) h = kiln::relu(h);
    }
    return (h - target).pow(2).mean();
  };
  auto step = kiln::compile([loss](const kiln::Tensor& x, const kiln::Tensor& target, const kiln::Tensor& w0,
                                   const kiln::Tensor& b0, const kiln::Tensor& w1, const kiln::Tensor& b1,
                                   const kiln::Tensor& w2, const kiln::Tensor& b2) {
    kiln::Tensor l = loss(x, target, {w0, b0, w1, b1, w2, b2});
    l.backward();
    return l;
  });
  w->impls = kiln_steps(
      params, [x, target, loss](const Leaves& p) { return loss(x, target, p); },
      [x, target, step](const Leaves& p) mutable { step(x, target, p[0], p[1], p[2], p[3], p[4], p[5]); });
  w->impls.push_back(peer_impl("torch_eager", torch_peer::mlp_train(values(x), batch, net, values(target))));
  w->reference = 3;
  // Gradients are sums of up to 784 * 128 products in different orders.
  w->tol = {1e-3, 1e-6};
  w->flops = mlp_train_flops(batch);
  return w;
}

// ---- elementwise chain training step ---------------------------------------------------

constexpr int kChainOps = 10;

kiln::Tensor chain_loss(const Leaves& p) {
  const kiln::Tensor& x = p[0];
  kiln::Tensor y = x * 1.5;
  y = y + 0.5;
  y = y.tanh();
  y = y * 2;
  y = y.sigmoid();
  y = y - 0.25;
  y = y.exp();
  y = y * x;
  y = y.sin();
  y = y * 0.5;
  return y.sum();
}

std::shared_ptr<Workload> chain_train(std::int64_t n) {
  auto w = std::make_shared<Workload>();
  kiln::Tensor x = materialized(kiln::randn({n}));
  w->name = "train_chain_10ops/" + std::to_string(n >> 20) + "M";
  auto step = kiln::compile([](const kiln::Tensor& x) {
    kiln::Tensor l = chain_loss({x});
    l.backward();
    return l;
  });
  w->impls = kiln_steps({x}, chain_loss, [step](const Leaves& p) mutable { step(p[0]); });
  w->impls.push_back(peer_impl("torch_eager", torch_peer::chain_train(values(x))));
  w->reference = 3;
  // Gradients are O(1); where one cancels to near 0, a few ulp of the vector
  // math library's tanh, exp and sin are a large part of it.
  w->tol = {1e-5, 1e-5};
  w->bytes = 4.0 * 4 * double(n);  // x read twice, its gradient written, the chain's values once between
  w->ops = 2 * kChainOps;
  return w;
}

// ---- recording cost ------------------------------------------------------------------

constexpr int kRecordOps = 32;

std::shared_ptr<Workload> record(bool requires_grad) {
  auto w = std::make_shared<Workload>();
  kiln::Tensor x = materialized(kiln::rand({8}) + 0.5), a = materialized(kiln::rand({8}) * 0.1 + 0.95);
  kiln::Tensor leaf = x.clone().requires_grad_(requires_grad);
  w->name = std::string("record_mul_8x32/") + (requires_grad ? "requires_grad" : "no_grad");
  w->impls = kiln_tiers([leaf, a] {
    kiln::Tensor y = leaf;
    for (int i = 0; i < kRecordOps; ++i) y = y * a;
    return y;
  });
  w->impls.push_back(peer_impl("torch_eager", torch_peer::mul_chain(values(x), values(a), kRecordOps, requires_grad)));
  w->reference = 2;
  w->ops = kRecordOps;
  return w;
}

void register_all() {
  const std::vector<int> both = {1, 2}, dflt = {kiln::get_num_threads()};
  add_rows(record(false), dflt, benchmark::kMicrosecond);
  add_rows(record(true), dflt, benchmark::kMicrosecond);
  add_rows(chain_train(1 << 20), both, benchmark::kMillisecond);
  add_rows(mlp_train(128), both, benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
  use_torch_peer();
  register_all();
  return workload_main(argc, argv);
}

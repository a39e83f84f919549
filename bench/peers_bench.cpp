// kiln side by side with LibTorch eager (and hand-written loops where they
// set a bar): per-op dispatch on tiny tensors, the GELU chain on 64, 1M and
// 16M floats, reductions, MLP inference, and one linear layer with its ReLU
// at the sizes layers have (linear_relu/BxIxO). Rows and checks: workload.h;
// SGEMM is gemm_bench.cpp, time to steady state steady_bench.cpp.
//
// Every kiln implementation runs twice: kiln_tier0 (JIT off: the
// interpreter, op by op) and kiln_tier1 (JIT on, after warm_tier1(): what
// the library settles on, compiled where it compiles; the
// compiled_groups/iter counter says whether it did).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "bench_util.h"
#include "gelu_variants.h"
#include "peers/torch_peer.h"
#include "torch_workload.h"
#include "workload.h"

namespace {

constexpr int kGeluOps = 9;  // 6 multiplies, 2 adds, 1 tanh (gelu_variants.h)

// Computed now, so that no call times it. Not through data_ptr(): a tensor
// whose pointer was handed out may change behind kiln, and so a weight
// could no longer stay packed between products as it does in inference.
kiln::Tensor materialized(kiln::Tensor t) {
  kiln::sync();
  return t;
}

Floats values(const kiln::Tensor& t) { return t.contiguous().to_vector<float>(); }

std::string count_name(std::int64_t n) {
  if (n % (1 << 20) == 0) return std::to_string(n >> 20) + "M";
  return std::to_string(n);
}

// ---- dispatch -------------------------------------------------------------------

// One op on 8 elements, its result read each call: the whole per-op path
// of an eager program that looks at every result.
std::shared_ptr<Workload> add_tiny() {
  auto w = std::make_shared<Workload>();
  kiln::Tensor a = materialized(kiln::randn({8})), b = materialized(kiln::randn({8}));
  w->name = "dispatch/add_8";
  w->impls = kiln_tiers([a, b] { return a + b; });
  w->impls.push_back(peer_impl("torch_eager", torch_peer::add(values(a), values(b))));
  w->reference = 2;
  w->ops = 1;
  return w;
}

// ---- the GELU chain ---------------------------------------------------------------

// The STREAM triad over n floats, the bandwidth ceiling of a workload of
// that size: the report gives kiln's GB/s as a fraction of its best run.
Impl triad_ceiling(std::int64_t n) {
  struct Arrays {
    Floats a, b, c;
  };
  auto arrays = std::make_shared<Arrays>(Arrays{Floats(n, 0.f), Floats(n, 1.f), Floats(n, 2.f)});
  Impl t{"stream_triad", Tier::none,
         [arrays, n] { triad(arrays->a.data(), arrays->b.data(), arrays->c.data(), 3.f, n); }, {}};
  t.bytes = 12.0 * double(n);  // reads b and c, writes a
  return t;
}

std::shared_ptr<Workload> gelu(std::int64_t n, bool with_triad) {
  auto w = std::make_shared<Workload>();
  kiln::Tensor x = materialized(kiln::randn({n}));
  const Floats xv = values(x);
  w->name = "gelu_chain/" + count_name(n);
  w->impls = kiln_tiers([x] { return gelu_chain(x); });
  w->impls.push_back(peer_impl("torch_eager", torch_peer::gelu_chain(xv)));
  w->reference = w->impls.size() - 1;
  w->impls.push_back(peer_impl("torch_fused_gelu", torch_peer::gelu_fused(xv)));
  w->impls.push_back(kiln_compiled([f = kiln::compile(gelu_chain), x]() mutable { return f(x); }));
  auto y = std::make_shared<Floats>(n, 0.f);
  if (have_mvec())
    w->impls.push_back({"hand_libmvec", Tier::none, [x, y, n] { hand_mvec(x.data_ptr<float>(), y->data(), n); },
                        [y] { return *y; }});
  if (with_triad) w->impls.push_back(triad_ceiling(n));
  // GELU's 1 + tanh(z) cancels for x < -3: a 1-ulp tanh difference is then
  // above 1e-5 relative, hence the absolute floor (as in jit_bench).
  w->tol = {1e-5, 1e-6};
  w->bytes = 8.0 * double(n);  // read x, write y
  w->ops = kGeluOps;
  return w;
}

// ---- reductions ----------------------------------------------------------------------

constexpr std::int64_t kRows = 4096, kCols = 1024;

std::shared_ptr<Workload> sum_16m() {
  auto w = std::make_shared<Workload>();
  const std::int64_t n = 16 << 20;
  kiln::Tensor x = materialized(kiln::randn({n}));
  w->name = "reduce/sum_16M";
  w->impls = kiln_tiers([x] { return kiln::sum(x); });
  w->impls.push_back(peer_impl("torch_eager", torch_peer::sum(values(x))));
  w->reference = 2;
  w->impls.push_back(triad_ceiling(n));
  // Float sums of 16M values in different orders: both libraries' errors
  // are bounded by a few u * sum|x| (pairwise/blocked summation); 1e-6 *
  // sum|x| (about 13 here) is 16 u * sum|x|.
  double abs_sum = 0;
  for (float v : values(x)) abs_sum += std::fabs(v);
  w->tol = {0, 1e-6 * abs_sum};
  w->bytes = 4.0 * double(n);
  return w;
}

// Rows of 1024 (exp kept on the stack between loops would fit) and of
// 16384 (64 KiB: only the output's row can hold it).
std::shared_ptr<Workload> softmax_rows(std::int64_t rows, std::int64_t cols) {
  auto w = std::make_shared<Workload>();
  kiln::Tensor x = materialized(kiln::randn({rows, cols}));
  w->name = "reduce/softmax_" + std::to_string(rows) + "x" + std::to_string(cols);
  w->impls = kiln_tiers([x] { return kiln::softmax(x, 1); });
  w->impls.push_back(peer_impl("torch_eager", torch_peer::softmax_rows(values(x), rows, cols)));
  w->reference = 2;
  w->impls.push_back(triad_ceiling(rows * cols));
  w->tol = {1e-5, 1e-7};
  w->bytes = 8.0 * double(rows * cols);
  return w;
}

constexpr double kLayerNormEps = 1e-5;

std::shared_ptr<Workload> layer_norm() {
  auto w = std::make_shared<Workload>();
  kiln::Tensor x = materialized(kiln::randn({kRows, kCols}));
  kiln::Tensor g = materialized(1 + 0.1 * kiln::randn({kCols})), b = materialized(0.1 * kiln::randn({kCols}));
  w->name = "reduce/layer_norm_4096x1024";
  // kiln has no layer_norm op: the user writes it from its parts, as
  // nn::LayerNorm does.
  w->impls = kiln_tiers([x, g, b] {
    kiln::Tensor mu = kiln::mean(x, {1}, true);
    kiln::Tensor var = kiln::var(x, {1}, false, true);
    return (x - mu) * kiln::rsqrt(var + kLayerNormEps) * g + b;
  });
  w->impls.push_back(peer_impl("torch_eager", torch_peer::layer_norm(values(x), kRows, kCols, values(g), values(b), kLayerNormEps)));
  w->reference = 2;
  w->impls.push_back(triad_ceiling(kRows * kCols));
  w->tol = {1e-5, 1e-5};
  w->bytes = 8.0 * double(kRows * kCols);
  return w;
}

// ---- MLP inference ---------------------------------------------------------------------

const std::vector<std::int64_t> kMlpDims = {784, 512, 512, 10};

kiln::Tensor mlp_forward(kiln::Tensor h, const std::vector<kiln::Tensor>& ws, const std::vector<kiln::Tensor>& bs,
                         bool relu_last = false) {
  for (std::size_t i = 0; i < ws.size(); ++i) {
    h = kiln::nn::functional::linear(h, ws[i], bs[i]);
    if (i + 1 < ws.size() || relu_last) h = kiln::relu(h);
  }
  return h;
}

// The MLP of kMlpDims, or with `dims` = {inputs, outputs} one layer with its
// activation, relu(linear(x, w, b)) (no kiln::compile row: that is the MLP's).
std::shared_ptr<Workload> mlp(std::int64_t batch, const std::vector<std::int64_t>& dims = kMlpDims) {
  auto w = std::make_shared<Workload>();
  const bool layer = dims.size() == 2;
  std::vector<kiln::Tensor> ws, bs;
  torch_peer::Mlp net{dims, {}, {}, layer};
  double flops = 0;
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
    const double scale = 1.0 / std::sqrt(double(dims[i]));  // keeps activations O(1)
    ws.push_back(materialized(scale * kiln::randn({dims[i + 1], dims[i]})));
    bs.push_back(materialized(0.1 * kiln::randn({dims[i + 1]})));
    net.weights.push_back(values(ws.back()));
    net.biases.push_back(values(bs.back()));
    flops += 2.0 * double(batch * dims[i] * dims[i + 1]);
  }
  kiln::Tensor x = materialized(kiln::randn({batch, dims[0]}));
  w->name = layer ? "linear_relu/" + std::to_string(batch) + "x" + std::to_string(dims[0]) + "x" + std::to_string(dims[1])
                  : "mlp_784-512-512-10/batch_" + std::to_string(batch);
  w->impls = kiln_tiers([x, ws, bs, layer] { return mlp_forward(x, ws, bs, layer); });
  w->impls.push_back(peer_impl("torch_eager", torch_peer::mlp(values(x), batch, net)));
  w->reference = 2;
  w->flops = flops;
  // Sums of up to 3072 products in different orders: outputs are O(1).
  w->tol = {2e-4, 1e-5};
  if (layer) return w;
  // The weights are arguments: a compiled function reads no other tensors.
  auto forward = kiln::compile([](const kiln::Tensor& in, const kiln::Tensor& w0, const kiln::Tensor& b0,
                                  const kiln::Tensor& w1, const kiln::Tensor& b1, const kiln::Tensor& w2,
                                  const kiln::Tensor& b2) { return mlp_forward(in, {w0, w1, w2}, {b0, b1, b2}); });
  w->impls.push_back(kiln_compiled([forward, x, ws, bs]() mutable { return forward(x, ws[0], bs[0], ws[1], bs[1], ws[2], bs[2]); }));
  return w;
}

void register_all() {
  const std::vector<int> both = {1, 2}, dflt = {kiln::get_num_threads()};
  add_rows(add_tiny(), dflt, benchmark::kMicrosecond);
  add_rows(gelu(64, false), dflt, benchmark::kMicrosecond);
  add_rows(gelu(1 << 20, true), both, benchmark::kMillisecond);
  add_rows(gelu(16 << 20, true), both, benchmark::kMillisecond);
  add_rows(sum_16m(), both, benchmark::kMillisecond);
  add_rows(softmax_rows(kRows, kCols), both, benchmark::kMillisecond);
  add_rows(softmax_rows(256, 16384), both, benchmark::kMillisecond);
  add_rows(layer_norm(), both, benchmark::kMillisecond);
  add_rows(mlp(1), both, benchmark::kMicrosecond);
  add_rows(mlp(128), both, benchmark::kMicrosecond);
  for (const std::vector<std::int64_t>& layer : {std::vector<std::int64_t>{8, 512, 512}, {32, 512, 512}, {128, 784, 512},
                                                  {1024, 512, 512}, {256, 3072, 768}})
    add_rows(mlp(layer[0], {layer[1], layer[2]}), both, benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
  use_torch_peer();
  benchmark::AddCustomContext("hand_loop_vector_tanh", vec_tanh().name);
  register_all();
  return workload_main(argc, argv);
}

// kiln::compile on tiny tensors: the per-call cost of a 10-op GELU chain on
// 64 floats, where recording and dispatch are everything.
//
//   BM_TinyChain_Ratios   interleaved rounds, same process: tier 0 (JIT
//                         off), the implicit path run compiled (each op
//                         still recorded), and the kiln::compile'd function
//                         (traced once, replayed without recording). Counters:
//                         microseconds per call and the ratios.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "bench_util.h"

namespace {

using Clock = std::chrono::steady_clock;

// The GELU chain of jit_bench, op by op (10 ops).
kiln::Tensor gelu_chain(const kiln::Tensor& x) {
  return 0.5 * x * (1 + kiln::tanh(0.7978845608 * (x + 0.044715 * x * x * x)));
}

template <class F>
double seconds_per_call(F&& call, const kiln::Tensor& x, int calls) {
  const auto start = Clock::now();
  for (int i = 0; i < calls; ++i) {
    kiln::Tensor y = call(x);
    benchmark::DoNotOptimize(y.data_ptr<float>());
  }
  return std::chrono::duration<double>(Clock::now() - start).count() / calls;
}

void check_same(const kiln::Tensor& got, const kiln::Tensor& want, const char* what) {
  std::vector<float> g = got.to_vector<float>(), w = want.to_vector<float>();
  for (std::size_t i = 0; i < w.size(); ++i)
    if (!(std::abs(g[i] - w[i]) <= 1e-5f * (1 + std::abs(w[i]))))
      die(std::string(what) + " differs from tier 0 at element " + std::to_string(i) + ": " + std::to_string(g[i]) +
          " vs " + std::to_string(w[i]));
}

void BM_TinyChain_Ratios(benchmark::State& state) {
  kiln::Tensor x = kiln::randn({64});
  auto compiled = kiln::compile(gelu_chain);
  kiln::jit::set_enabled(false);
  const kiln::Tensor want = gelu_chain(x);
  kiln::jit::set_enabled(true);
  check_same(compiled(x), want, "the compiled function (traced call)");
  for (int i = 0; i < 2000; ++i) seconds_per_call(gelu_chain, x, 1);  // the implicit path compiles
  kiln::jit::wait_for_compiles();
  seconds_per_call(gelu_chain, x, 200);
  check_same(compiled(x), want, "the compiled function (replayed)");
  check_same(gelu_chain(x), want, "the implicit path");

  constexpr int kCalls = 500;
  std::vector<double> t0, implicit, replay;
  for (auto _ : state) {
    for (int r = 0; r < 15; ++r) {
      kiln::jit::set_enabled(false);
      t0.push_back(seconds_per_call(gelu_chain, x, kCalls));
      kiln::jit::set_enabled(true);
      implicit.push_back(seconds_per_call(gelu_chain, x, kCalls));
      replay.push_back(seconds_per_call(compiled, x, kCalls));
    }
    state.SetIterationTime(median(replay));
  }
  state.counters["tier0_us"] = median(t0) * 1e6;
  state.counters["implicit_t1_us"] = median(implicit) * 1e6;
  state.counters["compiled_fn_us"] = median(replay) * 1e6;
  state.counters["compiled_fn_vs_t0"] = median(t0) / median(replay);
  state.counters["implicit_t1_vs_t0"] = median(t0) / median(implicit);
}
BENCHMARK(BM_TinyChain_Ratios)->Iterations(1)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

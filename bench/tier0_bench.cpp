// Tier-0 (interpreter) costs: recording an op on a tiny tensor, a 16M-element
// add, a 1024x1024 matmul; each beside a plain C++ loop doing the same work
// in the same run, so the ratio is what to read.
#include <benchmark/benchmark.h>

#include <vector>

#include <kiln/kiln.h>

namespace {

// Recording cost per op: handle creation, shape/dtype rules, key update.
// The trace limit is raised so that no segment runs inside the loop; the
// ops are dropped unexecuted (dead) when the buffer is flushed.
void BM_RecordOp(benchmark::State& state) {
  kiln::set_trace_limit(1 << 30);
  kiln::Tensor a = kiln::ones({8});
  kiln::Tensor b = kiln::ones({8});
  kiln::sync();
  std::int64_t n = 0;
  for (auto _ : state) {
    kiln::Tensor c = a + b;
    benchmark::DoNotOptimize(c);
    if (++n % 4096 == 0) {
      state.PauseTiming();
      kiln::sync();
      state.ResumeTiming();
    }
  }
  kiln::sync();
  kiln::set_trace_limit(4096);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RecordOp);

constexpr std::int64_t kBig = 16 << 20;

void BM_Add16M_Kiln(benchmark::State& state) {
  kiln::Tensor a = kiln::rand({kBig}), b = kiln::rand({kBig});
  kiln::sync();
  for (auto _ : state) {
    kiln::Tensor c = a + b;
    benchmark::DoNotOptimize(c.data_ptr<float>());
  }
  state.SetBytesProcessed(state.iterations() * kBig * 12);
}
BENCHMARK(BM_Add16M_Kiln)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Add16M_PlainLoop(benchmark::State& state) {
  std::vector<float> a(kBig, 1.f), b(kBig, 2.f), c(kBig);
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kBig; ++i) c[i] = a[i] + b[i];
    benchmark::DoNotOptimize(c.data());
  }
  state.SetBytesProcessed(state.iterations() * kBig * 12);
}
BENCHMARK(BM_Add16M_PlainLoop)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Matmul1024_Kiln(benchmark::State& state) {
  kiln::Tensor a = kiln::randn({1024, 1024}), b = kiln::randn({1024, 1024});
  kiln::sync();
  for (auto _ : state) {
    kiln::Tensor c = kiln::matmul(a, b);
    benchmark::DoNotOptimize(c.data_ptr<float>());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * 1024 * 1024 * 1024 * state.iterations(), benchmark::Counter::kIsRate,
                         benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Matmul1024_Kiln)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

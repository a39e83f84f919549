// SGEMM: kiln::matmul against OpenBLAS's cblas_sgemm in the same run, and
// both against the machine's FP32 FMA peak measured here by a register-
// resident FMA loop. Built only where OpenBLAS is found (bench/CMakeLists.txt).
//
//   BM_PeakFMA              FMA peak on all cores (AVX-512 or AVX2+FMA, chosen at run time)
//   BM_Sgemm/kiln/N         C = A B, N x N float32 row-major, kiln::matmul
//   BM_Sgemm/openblas/N     the same with cblas_sgemm
//   BM_Sgemm_Ratios/N       the two alternated block by block; ratio and fraction of peak
//
// kiln's matmul is not a fusible op, so it runs the tier-0 GEMM kernel
// whatever the JIT setting (the compiled_groups/iter counter shows it).
// Run with OPENBLAS_CORETYPE unset: `OPENBLAS_CORETYPE=Haswell` (set on
// some machines) halves OpenBLAS's sgemm here; the program warns if it is set.
#include <benchmark/benchmark.h>

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <kiln/kiln.h>

#include "bench_util.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }


// OpenBLAS's idle threads spin for tens of milliseconds after a call, and
// TBB's briefly: before timing one library right after the other, let the
// other's threads park, or the first library steals the second's cores.
void let_threads_park() { std::this_thread::sleep_for(std::chrono::milliseconds(200)); }

// ---- the FMA peak -----------------------------------------------------------------

typedef float v16sf __attribute__((vector_size(64)));
typedef float v8sf __attribute__((vector_size(32)));
constexpr int kAcc = 16;  // independent chains: > latency x FMA ports

// acc = acc * m + a, kAcc independent registers; the compiler contracts
// each update into one vfmadd (GNU C++ default -ffp-contract=fast).
template <class V>
__attribute__((always_inline)) inline float fma_chains(std::int64_t iters, float seed) {
  V acc[kAcc];
  for (int j = 0; j < kAcc; ++j) acc[j] = V{} + (seed + static_cast<float>(j));
  const V m = V{} + 0.9999999f, a = V{} + 1e-7f;
  for (std::int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < kAcc; ++j) acc[j] = acc[j] * m + a;
  }
  V s = V{};
  for (int j = 0; j < kAcc; ++j) s += acc[j];
  float r = 0;
  for (std::size_t l = 0; l < sizeof(V) / sizeof(float); ++l) r += s[l];
  return r;
}

__attribute__((target("avx512f"), noinline)) float fma_avx512(std::int64_t iters, float seed) {
  return fma_chains<v16sf>(iters, seed);
}
__attribute__((target("avx2,fma"), noinline)) float fma_avx2(std::int64_t iters, float seed) {
  return fma_chains<v8sf>(iters, seed);
}

struct Isa {
  bool avx512 = false, avx2 = false;
  int lanes = 0;
  const char* name = "none";
};

const Isa& isa() {
  static const Isa i = [] {
    Isa r;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) r = {true, false, 16, "avx512f"};
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) r = {false, true, 8, "avx2+fma"};
    return r;
  }();
  return i;
}

int cores() { return std::max(1u, std::thread::hardware_concurrency()); }

// One FMA loop per core, all at once; returns GFLOP/s (0 if no FMA ISA).
double peak_once(std::int64_t iters) {
  if (!isa().lanes) return 0;
  std::vector<std::thread> ts;
  std::vector<float> sink(cores());
  const auto start = Clock::now();
  for (int t = 0; t < cores(); ++t)
    ts.emplace_back([&, t] { sink[t] = isa().avx512 ? fma_avx512(iters, float(t)) : fma_avx2(iters, float(t)); });
  for (auto& t : ts) t.join();
  const double s = seconds_since(start);
  benchmark::DoNotOptimize(sink.data());
  return 2.0 * kAcc * isa().lanes * static_cast<double>(iters) * cores() / s / 1e9;
}

constexpr std::int64_t kPeakIters = 20'000'000;

void BM_PeakFMA(benchmark::State& state) {
  if (!isa().lanes) {
    state.SkipWithError("no AVX-512F nor AVX2+FMA");
    return;
  }
  let_threads_park();
  for (auto _ : state) benchmark::DoNotOptimize(peak_once(kPeakIters));
  const double flops = 2.0 * kAcc * isa().lanes * static_cast<double>(kPeakIters) * cores();
  state.counters["GFLOP/s"] = benchmark::Counter(flops * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate,
                                                 benchmark::Counter::kIs1000);
  state.counters["GFLOP/s_per_core"] = benchmark::Counter(
      flops * static_cast<double>(state.iterations()) / cores(), benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  state.counters["cores"] = cores();
  state.SetLabel(isa().name);
}
BENCHMARK(BM_PeakFMA)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---- the GEMMs ---------------------------------------------------------------------

struct Problem {
  std::int64_t n;
  kiln::Tensor a, b;                 // kiln operands
  std::vector<float> av, bv, cv;     // the same values for OpenBLAS, and its result
};

void openblas_sgemm(Problem& p) {
  const int n = static_cast<int>(p.n);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f, p.av.data(), n, p.bv.data(), n, 0.f, p.cv.data(), n);
}

const float* kiln_matmul(Problem& p, kiln::Tensor& keep) {
  keep = kiln::matmul(p.a, p.b);
  return keep.data_ptr<float>();
}

// kiln's C against OpenBLAS's, element by element, within twice the classic
// bound on a length-K float dot product: |d| <= 2 K u (|A||B|)_ij, u = 2^-24.
void check(Problem& p) {
  const std::int64_t n = p.n;
  kiln::Tensor c;
  const float* kc = kiln_matmul(p, c);
  openblas_sgemm(p);
  std::vector<float> aa(p.av), ab(p.bv), bound(n * n);
  for (float& v : aa) v = std::fabs(v);
  for (float& v : ab) v = std::fabs(v);
  const int ni = static_cast<int>(n);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.f, aa.data(), ni, ab.data(), ni, 0.f, bound.data(), ni);
  const double u = std::ldexp(1.0, -24);
  double max_d = 0, max_ref = 0, worst_frac = 0;
  std::int64_t bad = 0, first = -1;
  for (std::int64_t i = 0; i < n * n; ++i) {
    const double d = std::fabs(double(kc[i]) - double(p.cv[i]));
    const double tol = 2.0 * double(n) * u * double(bound[i]);
    max_d = std::max(max_d, d);
    max_ref = std::max(max_ref, std::fabs(double(p.cv[i])));
    if (tol > 0) worst_frac = std::max(worst_frac, d / tol);
    if (!(d <= tol)) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  std::fprintf(stderr, "check kiln::matmul vs cblas_sgemm, N=%lld: max |diff| %.3g (max |C| %.3g), worst diff / bound %.3g\n",
               static_cast<long long>(n), max_d, max_ref, worst_frac);
  if (bad)
    die("kiln::matmul differs from OpenBLAS at N=" + std::to_string(n) + " in " + std::to_string(bad) + " elements; first at " +
        std::to_string(first) + ": kiln " + std::to_string(kc[first]) + ", OpenBLAS " + std::to_string(p.cv[first]));
}

Problem& problem(std::int64_t n) {
  static std::map<std::int64_t, Problem*> all;
  auto it = all.find(n);
  if (it != all.end()) return *it->second;
  auto* p = new Problem;
  p->n = n;
  p->a = kiln::randn({n, n});
  p->b = kiln::randn({n, n});
  p->av.assign(p->a.data_ptr<float>(), p->a.data_ptr<float>() + n * n);
  p->bv.assign(p->b.data_ptr<float>(), p->b.data_ptr<float>() + n * n);
  p->cv.assign(n * n, 0.f);
  check(*p);
  all[n] = p;
  return *p;
}

double flops(std::int64_t n) { return 2.0 * double(n) * double(n) * double(n); }

void set_gflops(benchmark::State& state, std::int64_t n) {
  state.counters["GFLOP/s"] = benchmark::Counter(flops(n) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate,
                                                 benchmark::Counter::kIs1000);
}

void BM_SgemmKiln(benchmark::State& state) {
  Problem& p = problem(state.range(0));
  let_threads_park();
  const std::uint64_t c0 = kiln::stats().jit.group_runs_compiled;
  kiln::Tensor c;
  for (auto _ : state) benchmark::DoNotOptimize(kiln_matmul(p, c));
  set_gflops(state, p.n);
  state.counters["compiled_groups/iter"] =
      static_cast<double>(kiln::stats().jit.group_runs_compiled - c0) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_SgemmKiln)->Name("BM_Sgemm/kiln")->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SgemmOpenBLAS(benchmark::State& state) {
  Problem& p = problem(state.range(0));
  let_threads_park();
  for (auto _ : state) {
    openblas_sgemm(p);
    benchmark::DoNotOptimize(p.cv.data());
    benchmark::ClobberMemory();
  }
  set_gflops(state, p.n);
}
BENCHMARK(BM_SgemmOpenBLAS)->Name("BM_Sgemm/openblas")->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

// Alternates blocks of kiln and OpenBLAS calls (a block: ~0.3 s or 3 calls,
// the first call of each untimed), parking threads between blocks; 4 rounds,
// each also measuring the FMA peak (the best of the 4 is the reference).
void BM_SgemmRatios(benchmark::State& state) {
  Problem& p = problem(state.range(0));
  const int calls = static_cast<int>(std::clamp(0.3e9 / flops(p.n) * 100.0, 3.0, 200.0));  // ~0.3 s at 100 GFLOP/s
  std::vector<double> tk, to, peaks;
  for (auto _ : state) {
    for (int round = 0; round < 4; ++round) {
      let_threads_park();
      peaks.push_back(peak_once(kPeakIters / 4));
      kiln::Tensor c;
      benchmark::DoNotOptimize(kiln_matmul(p, c));
      for (int i = 0; i < calls; ++i) {
        auto s = Clock::now();
        benchmark::DoNotOptimize(kiln_matmul(p, c));
        tk.push_back(seconds_since(s));
      }
      let_threads_park();
      openblas_sgemm(p);
      for (int i = 0; i < calls; ++i) {
        auto s = Clock::now();
        openblas_sgemm(p);
        benchmark::ClobberMemory();
        to.push_back(seconds_since(s));
      }
    }
    state.SetIterationTime(median(tk));
  }
  const double gk = flops(p.n) / median(tk) / 1e9, go = flops(p.n) / median(to) / 1e9;
  const double peak = *std::max_element(peaks.begin(), peaks.end());
  state.counters["kiln_GFLOPs"] = gk;
  state.counters["openblas_GFLOPs"] = go;
  state.counters["kiln_over_openblas"] = gk / go;
  state.counters["peak_GFLOPs"] = peak;
  if (peak > 0) {
    state.counters["kiln_frac_peak"] = gk / peak;
    state.counters["openblas_frac_peak"] = go / peak;
  }
}
BENCHMARK(BM_SgemmRatios)->Name("BM_Sgemm_Ratios")->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (const char* ct = std::getenv("OPENBLAS_CORETYPE")) {
    std::fprintf(stderr, "gemm_bench: warning: OPENBLAS_CORETYPE=%s is set; OpenBLAS may use slower kernels than this CPU has "
                 "(`make bench` unsets it)\n", ct);
    benchmark::AddCustomContext("OPENBLAS_CORETYPE", ct);
  }
  benchmark::AddCustomContext("openblas_corename", openblas_get_corename());
  benchmark::AddCustomContext("openblas_config", openblas_get_config());
  benchmark::AddCustomContext("openblas_threads", std::to_string(openblas_get_num_threads()));
  benchmark::AddCustomContext("kiln_threads", std::to_string(kiln::get_num_threads()));
  benchmark::AddCustomContext("fma_isa", isa().name);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

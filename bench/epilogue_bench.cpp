// A linear layer with its activation, relu(x @ w + b), float32, at
// 128x512x512 and 1024x1024x1024 (M x K x N), four ways in the same run:
//
//   tier0         KILN_JIT off: the GEMM writes the product, then add and
//                 relu each make a pass over it
//   tier1_split   the product materialized first (a sync between the matmul
//                 and the rest), then one compiled add+relu pass: tier 1
//                 without the matmul epilogue
//   tier1_fused   one segment: the GEMM with the compiled add+relu kernel as
//                 its per-block epilogue (jit/fusion/epilogue.h)
//   openblas      cblas_sgemm, then a separate bias+relu loop
//
// BM_Epilogue/M/K/N alternates the four in 4 rounds of blocks of calls (the
// first call of each block untimed, threads parked between blocks) and
// reports each one's median time in ms and GFLOP/s. It dies if a result is
// wrong or if tier1_fused did not run fused.
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <kiln/kiln.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "jit/tier1/config.h"
#include "jit/tier1/matmul_epilogue.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Problem {
  std::int64_t m, k, n;
  kiln::Tensor x, w, b;
  std::vector<float> xv, wv, bv, cv;
};

Problem make_problem(std::int64_t m, std::int64_t k, std::int64_t n) {
  Problem p{m, k, n, kiln::randn({m, k}), kiln::randn({k, n}), kiln::randn({n}), {}, {}, {}, {}};
  p.xv.assign(p.x.data_ptr<float>(), p.x.data_ptr<float>() + m * k);
  p.wv.assign(p.w.data_ptr<float>(), p.w.data_ptr<float>() + k * n);
  p.bv.assign(p.b.data_ptr<float>(), p.b.data_ptr<float>() + n);
  p.cv.assign(m * n, 0.f);
  return p;
}

void openblas_linear_relu(Problem& p) {
  const int m = static_cast<int>(p.m), k = static_cast<int>(p.k), n = static_cast<int>(p.n);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.f, p.xv.data(), k, p.wv.data(), n, 0.f, p.cv.data(),
              n);
  for (std::int64_t i = 0; i < p.m; ++i) {
    float* row = p.cv.data() + i * p.n;
    for (std::int64_t j = 0; j < p.n; ++j) row[j] = std::max(row[j] + p.bv[j], 0.f);
  }
}

const float* kiln_fused(Problem& p, kiln::Tensor& keep) {
  keep = (p.x.matmul(p.w) + p.b).relu();
  return keep.data_ptr<float>();
}

const float* kiln_split(Problem& p, kiln::Tensor& keep) {
  kiln::Tensor y = p.x.matmul(p.w);
  kiln::sync();
  keep = (y + p.b).relu();
  return keep.data_ptr<float>();
}

void set_tier(int tier) {
  kiln::jit::set_enabled(tier == 1);
  kiln::jit::set_compile_sync(true);
  kiln::jit::set_hot_threshold(1);
}

// Largest difference to OpenBLAS relative to the largest |value|.
void check(Problem& p, const float* got, const char* what) {
  openblas_linear_relu(p);
  double worst = 0, largest = 1e-30;
  for (std::size_t i = 0; i < p.cv.size(); ++i) {
    worst = std::max(worst, std::fabs(double(got[i]) - double(p.cv[i])));
    largest = std::max(largest, std::fabs(double(p.cv[i])));
  }
  if (worst > 1e-4 * largest) die(std::string(what) + " differs from OpenBLAS: " + std::to_string(worst));
}

void BM_Epilogue(benchmark::State& state) {
  Problem p = make_problem(state.range(0), state.range(1), state.range(2));
  const double flops = 2.0 * double(p.m) * double(p.k) * double(p.n);
  const int calls = static_cast<int>(std::clamp(0.2e9 / flops * 100.0, 3.0, 300.0));  // ~0.2 s at 100 GFLOP/s
  kiln::Tensor keep;
  struct Way {
    const char* name;
    int tier;  // -1: not kiln
    std::function<void()> call;
    std::vector<double> times;
  };
  std::vector<Way> ways = {
      {"tier0", 0, [&] { benchmark::DoNotOptimize(kiln_fused(p, keep)); }, {}},
      {"tier1_split", 1, [&] { benchmark::DoNotOptimize(kiln_split(p, keep)); }, {}},
      {"tier1_fused", 1, [&] { benchmark::DoNotOptimize(kiln_fused(p, keep)); }, {}},
      {"openblas",
       -1,
       [&] {
         openblas_linear_relu(p);
         benchmark::ClobberMemory();
       },
       {}},
  };
  set_tier(0);
  check(p, kiln_fused(p, keep), "tier0");
  set_tier(1);
  check(p, kiln_split(p, keep), "tier1_split");
  const std::uint64_t fused_before = kiln::jit::matmul_epilogue_runs();
  check(p, kiln_fused(p, keep), "tier1_fused");
  if (kiln::jit::matmul_epilogue_runs() == fused_before) die("tier1_fused did not run the matmul epilogue");
  for (auto _ : state) {
    for (int round = 0; round < 4; ++round) {
      for (Way& way : ways) {
        if (way.tier >= 0) set_tier(way.tier);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // OpenBLAS's and TBB's threads park
        way.call();
        for (int i = 0; i < calls; ++i) {
          const auto start = Clock::now();
          way.call();
          way.times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
        }
      }
    }
    state.SetIterationTime(median(ways[2].times));
  }
  for (const Way& way : ways) {
    state.counters[std::string(way.name) + "_ms"] = median(way.times) * 1e3;
    state.counters[std::string(way.name) + "_GFLOPs"] = flops / median(way.times) / 1e9;
  }
  set_tier(0);
}
BENCHMARK(BM_Epilogue)
    ->Args({128, 512, 512})
    ->Args({1024, 1024, 1024})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

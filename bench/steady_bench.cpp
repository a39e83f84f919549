// Time to steady state: per-iteration times of a loop from its first call,
// each run in a fresh child process, first with a cold on-disk kernel cache
// (an empty KILN_CACHE_DIR: the kernel is compiled in the background while
// the loop runs), then with that cache warm (the same directory: the kernel
// is loaded from disk). The loop is the GELU chain on 16M floats
// (gelu_variants.h), 100 iterations, JIT on, asynchronous compiles.
//
//   steady/gelu_16M/cold_cache    counters: it00_ms..it19_ms (the first 20
//   steady/gelu_16M/warm_cache    iterations), tier0_ms (JIT off, median of 5),
//                                 first_compiled_iter, max_iter_over_t0,
//                                 o3_swap_iter, steady_ms (median of the last 10)
//
// Not interleaved: the warm row needs the cache the cold row wrote.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "bench_util.h"
#include "gelu_variants.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kN = 16 << 20;
constexpr int kIters = 100, kReported = 20;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

kiln::JitStats jit() { return kiln::stats().jit; }

// The child: the tier-0 time of the chain (JIT off: these runs do not make
// the key hot), then kIters iterations with the JIT on, each timed and
// marked compiled or not. The first compile is at O1; after 64 compiled
// runs the kernel is recompiled at O3 and hot-swapped, which the 100
// iterations show. Prints the table to stderr, one summary line to stdout.
int child(bool expect_cold) {
  kiln::Tensor x = kiln::randn({kN});
  x.data_ptr<float>();
  kiln::jit::set_enabled(false);
  std::vector<double> ref;
  for (int i = 0; i < 5; ++i) {
    auto s = Clock::now();
    run_chain(x);
    ref.push_back(seconds_since(s));
  }
  const double t0 = median(ref);
  kiln::jit::set_enabled(true);
  const kiln::JitStats before = jit();
  std::vector<double> ms(kIters);
  std::vector<int> tier(kIters), swapped(kIters);
  int first_compiled = -1, first_swap = -1;
  for (int i = 0; i < kIters; ++i) {
    const kiln::JitStats j0 = jit();
    auto s = Clock::now();
    run_chain(x);
    ms[i] = seconds_since(s) * 1e3;
    const kiln::JitStats j1 = jit();
    tier[i] = j1.group_runs_compiled > j0.group_runs_compiled ? 1 : 0;
    swapped[i] = j1.hot_swaps > j0.hot_swaps ? 1 : 0;  // newer code published during this iteration
    if (tier[i] && first_compiled < 0) first_compiled = i;
    if (swapped[i] && first_swap < 0) first_swap = i;
  }
  const kiln::JitStats after = jit();
  const auto disk_hits = static_cast<unsigned long long>(after.disk_cache_hits - before.disk_cache_hits);
  if (expect_cold && (first_compiled == 0 || disk_hits > 0))
    std::fprintf(stderr, "time to steady state: WARNING: the key was not fresh (compiled from iteration %d, %llu disk hits)\n",
                 first_compiled, disk_hits);
  const double worst = *std::max_element(ms.begin(), ms.end());
  const double steady = median(std::vector<double>(ms.end() - 10, ms.end()));
  std::fprintf(stderr, "\nTime to steady state, %s cache: GELU chain on %lld floats, fresh process; tier 0 (JIT off, median of 5) %.2f ms\n",
               expect_cold ? "cold" : "warm", static_cast<long long>(kN), t0 * 1e3);
  std::fprintf(stderr, "%5s %9s %9s %5s %5s\n", "iter", "ms", "/tier0", "tier", "swap");
  for (int i = 0; i < kIters; ++i)
    if (i < 30 || swapped[i] || i % 10 == 9)
      std::fprintf(stderr, "%5d %9.2f %9.3f %5d %5s\n", i, ms[i], ms[i] / (t0 * 1e3), tier[i], swapped[i] ? "swap" : "");
  std::printf("tier0_ms=%.6g first_compiled_iter=%d o3_swap_iter=%d max_iter_over_t0=%.6g steady_ms=%.6g compiles=%llu disk_hits=%llu",
              t0 * 1e3, first_compiled, first_swap, worst / (t0 * 1e3), steady,
              static_cast<unsigned long long>(after.compiles_done - before.compiles_done), disk_hits);
  for (int i = 0; i < kReported; ++i) std::printf(" it%02d_ms=%.6g", i, ms[i]);
  std::printf("\n");
  return 0;
}

std::string g_cache;  // the cache directory both rows share, removed at exit

void remove_cache() {
  std::error_code ignored;
  std::filesystem::remove_all(g_cache, ignored);
}

void run_row(benchmark::State& state, const char* mode) {
  std::map<std::string, double> r;
  for (auto _ : state) {
    r = run_child("KILN_CACHE_DIR='" + g_cache + "'", mode);
    state.SetIterationTime(r["steady_ms"] / 1e3);
  }
  put_counters(state, r);
}

void BM_Cold(benchmark::State& state) { run_row(state, "--kiln-steady-child=cold"); }
void BM_Warm(benchmark::State& state) { run_row(state, "--kiln-steady-child=warm"); }
BENCHMARK(BM_Cold)->Name("steady/gelu_16M/cold_cache")->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Warm)->Name("steady/gelu_16M/warm_cache")->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strncmp(argv[1], "--kiln-steady-child=", 20) == 0) return child(std::strcmp(argv[1] + 20, "cold") == 0);
  char tmpl[] = "/tmp/kiln-steady-cache-XXXXXX";
  if (!mkdtemp(tmpl)) die("mkdtemp failed");
  g_cache = tmpl;
  std::atexit(remove_cache);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

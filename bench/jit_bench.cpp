// Tier 1 (fused, compiled) against tier 0 (interpreted op by op), against a
// hand-written one-pass loop and against the memory-bandwidth ceiling, all in
// one run. The ratio counters are what to read; absolute numbers move with
// the machine's load.
//
// The workload is GELU (tanh form) written op by op, as a user of an eager
// API writes it:  0.5*x*(1+tanh(0.7978845608*(x+0.044715*x*x*x)))
// That is 9 recorded ops (5 multiplies by a scalar or by x, 2 adds, 1 tanh,
// 1 final multiply); tier 0 runs each as its own pass over memory, tier 1
// fuses them into one pass that reads x and writes y (8 bytes per element).
//
//   BM_Gelu16M/...        16M float32: tier 0, tier 1, hand loops, triad (GB/s)
//   BM_Gelu16M_Ratios     the same five, interleaved round by round; ratios
//   BM_Gelu64/...         64 elements: per-call overhead of each tier
//   BM_Gelu64_Ratios      interleaved, with the chain as a kiln::compile'd
//                         function too; ratios
//   BM_CompileLatency     20 distinct chains compiled: stats().jit.compile_ms_*
//   BM_DiskCacheLoad      a second process with the same KILN_CACHE_DIR loads
//                         those 20 kernels from disk: disk_load_ms_p50
//
// Unless KILN_CACHE_DIR is set, the program uses a fresh, empty cache
// directory (removed at exit), so every compile it reports is a real one.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "bench_util.h"
#include "gelu_variants.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kBig = 16 << 20;
constexpr std::int64_t kSmall = 64;
constexpr double kChainBytes = 8;   // read x, write y
constexpr double kTriadBytes = 12;  // read b and c, write a
constexpr int kChainOps = 9;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }



// ---- JIT state --------------------------------------------------------------

kiln::JitStats jit() { return kiln::stats().jit; }

std::string failures() {
  std::string s;
  for (const std::string& f : jit().recent_failures) s += "\n  " + f;
  return s.empty() ? " (none recorded)" : s;
}

// Runs `x`'s chain with the JIT on until its kernel runs compiled, then past
// the O1 -> O3 upgrade (64 compiled runs) and waits for that compile, so
// that what follows is the steady state. Dies if it never compiles.
void warm_tier1(const kiln::Tensor& x) {
  kiln::jit::set_enabled(true);
  const std::uint64_t before = jit().group_runs_compiled;
  const auto start = Clock::now();
  std::int64_t runs = 0;
  while (jit().group_runs_compiled == before) {
    run_chain(x);
    ++runs;
    if (seconds_since(start) > 120)
      die("the chain on " + std::to_string(x.numel()) + " elements never ran compiled after " + std::to_string(runs) +
          " runs in 120 s; JIT failures:" + failures());
  }
  for (int i = 0; i < 80; ++i) run_chain(x);
  kiln::jit::wait_for_compiles();
  for (int i = 0; i < 4; ++i) run_chain(x);
  const std::uint64_t c0 = jit().group_runs_compiled;
  run_chain(x);
  if (jit().group_runs_compiled == c0)
    die("after warm-up the chain on " + std::to_string(x.numel()) + " elements no longer runs compiled (demoted?); JIT failures:" +
        failures());
}

// ---- data and the one-time correctness check --------------------------------

struct Big {
  kiln::Tensor x;
  std::vector<float> y_hand, a, b, c;  // hand-loop output, triad arrays
};

// Same values everywhere: |y - ref| <= 1e-5 * |ref| + 1e-6. The absolute
// floor covers x < -3, where 1 + tanh(z) cancels and a 1-ulp difference in
// tanh alone exceeds 1e-5 relative.
void check_close(const float* got, const float* ref, std::int64_t n, const char* what) {
  double max_rel = 0, max_abs = 0;
  std::int64_t bad = 0, first_bad = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    double d = std::fabs(double(got[i]) - double(ref[i]));
    max_abs = std::max(max_abs, d);
    if (std::fabs(ref[i]) > 1e-3) max_rel = std::max(max_rel, d / std::fabs(double(ref[i])));
    if (!(d <= 1e-5 * std::fabs(double(ref[i])) + 1e-6)) {
      if (first_bad < 0) first_bad = i;
      ++bad;
    }
  }
  std::fprintf(stderr, "check %-28s vs tier 0 on %lld elements: max abs err %.3g, max rel err (|ref| > 1e-3) %.3g\n", what,
               static_cast<long long>(n), max_abs, max_rel);
  if (bad)
    die(std::string(what) + " differs from tier 0 at " + std::to_string(bad) + " elements; first at " + std::to_string(first_bad) +
        ": got " + std::to_string(got[first_bad]) + ", tier 0 " + std::to_string(ref[first_bad]));
}

// Tier 1 (steady state) and the hand loops against tier 0, before any timing.
void check_chain(const kiln::Tensor& x, std::vector<float>* hand_out) {
  kiln::jit::set_enabled(false);
  std::vector<float> ref = gelu_chain(x).to_vector<float>();
  warm_tier1(x);
  const std::uint64_t c0 = jit().group_runs_compiled;
  std::vector<float> t1 = gelu_chain(x).to_vector<float>();
  if (jit().group_runs_compiled == c0) die("the checked tier-1 run was not compiled");
  const std::string n = std::to_string(x.numel());
  check_close(t1.data(), ref.data(), x.numel(), ("tier 1 (n=" + n + ")").c_str());
  if (hand_out) {
    const float* xp = x.data_ptr<float>();
    hand_scalar(xp, hand_out->data(), x.numel());
    check_close(hand_out->data(), ref.data(), x.numel(), "hand loop std::tanh");
    if (have_mvec()) {
      hand_mvec(xp, hand_out->data(), x.numel());
      check_close(hand_out->data(), ref.data(), x.numel(), "hand loop libmvec tanhf");
    }
  }
}

Big& big() {
  static Big* b = [] {
    auto* d = new Big;
    d->x = kiln::randn({kBig});
    d->x.data_ptr<float>();
    d->y_hand.assign(kBig, 0.f);
    d->a.assign(kBig, 0.f);
    d->b.assign(kBig, 1.f);
    d->c.assign(kBig, 2.f);
    check_chain(d->x, &d->y_hand);
    return d;
  }();
  return *b;
}

kiln::Tensor& small() {
  static kiln::Tensor* x = [] {
    auto* t = new kiln::Tensor(kiln::randn({kSmall}));
    check_chain(*t, nullptr);
    return t;
  }();
  return *x;
}

void set_rate(benchmark::State& state, double bytes_per_iter) {
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes_per_iter * static_cast<double>(state.iterations())));
}

// ---- 16M: each variant on its own ---------------------------------------------

void BM_Gelu16M_Tier0(benchmark::State& state) {
  Big& d = big();
  kiln::jit::set_enabled(false);
  for (auto _ : state) run_chain(d.x);
  kiln::jit::set_enabled(true);
  set_rate(state, kChainBytes * kBig);
}
BENCHMARK(BM_Gelu16M_Tier0)->Name("BM_Gelu16M/kiln_tier0")->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Gelu16M_Tier1(benchmark::State& state) {
  Big& d = big();
  warm_tier1(d.x);
  const kiln::JitStats j0 = jit();
  for (auto _ : state) run_chain(d.x);
  const kiln::JitStats j1 = jit();
  set_rate(state, kChainBytes * kBig);
  const double it = static_cast<double>(state.iterations());
  state.counters["compiled_groups/iter"] = static_cast<double>(j1.group_runs_compiled - j0.group_runs_compiled) / it;
  state.counters["interp_groups/iter"] = static_cast<double>(j1.group_runs_interpreted - j0.group_runs_interpreted) / it;
}
BENCHMARK(BM_Gelu16M_Tier1)->Name("BM_Gelu16M/kiln_tier1")->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Gelu16M_HandScalar(benchmark::State& state) {
  Big& d = big();
  const float* x = d.x.data_ptr<float>();
  for (auto _ : state) {
    hand_scalar(x, d.y_hand.data(), kBig);
    benchmark::DoNotOptimize(d.y_hand.data());
    benchmark::ClobberMemory();
  }
  set_rate(state, kChainBytes * kBig);
}
BENCHMARK(BM_Gelu16M_HandScalar)->Name("BM_Gelu16M/hand_std_tanh")->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Gelu16M_HandMvec(benchmark::State& state) {
  Big& d = big();
  if (!have_mvec()) {
    state.SkipWithError("libmvec (vector tanhf) not available");
    return;
  }
  const float* x = d.x.data_ptr<float>();
  for (auto _ : state) {
    hand_mvec(x, d.y_hand.data(), kBig);
    benchmark::DoNotOptimize(d.y_hand.data());
    benchmark::ClobberMemory();
  }
  set_rate(state, kChainBytes * kBig);
}
BENCHMARK(BM_Gelu16M_HandMvec)->Name("BM_Gelu16M/hand_libmvec_tanhf")->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Triad16M(benchmark::State& state) {
  Big& d = big();
  for (auto _ : state) {
    triad(d.a.data(), d.b.data(), d.c.data(), 3.f, kBig);
    benchmark::DoNotOptimize(d.a.data());
    benchmark::ClobberMemory();
  }
  set_rate(state, kTriadBytes * kBig);
}
BENCHMARK(BM_Triad16M)->Name("BM_Gelu16M/stream_triad")->Unit(benchmark::kMillisecond)->UseRealTime();

// ---- 16M: all five interleaved, so that load changes hit them alike -----------

void BM_Gelu16M_Ratios(benchmark::State& state) {
  Big& d = big();
  warm_tier1(d.x);
  const float* x = d.x.data_ptr<float>();
  const int rounds = static_cast<int>(state.range(0));
  std::vector<double> t0, t1, hs, hv, tr;
  for (auto _ : state) {
    for (int r = 0; r < rounds; ++r) {
      kiln::jit::set_enabled(false);
      auto s = Clock::now();
      run_chain(d.x);
      t0.push_back(seconds_since(s));
      kiln::jit::set_enabled(true);
      s = Clock::now();
      run_chain(d.x);
      t1.push_back(seconds_since(s));
      s = Clock::now();
      hand_scalar(x, d.y_hand.data(), kBig);
      benchmark::ClobberMemory();
      hs.push_back(seconds_since(s));
      if (have_mvec()) {
        s = Clock::now();
        hand_mvec(x, d.y_hand.data(), kBig);
        benchmark::ClobberMemory();
        hv.push_back(seconds_since(s));
      }
      s = Clock::now();
      triad(d.a.data(), d.b.data(), d.c.data(), 3.f, kBig);
      benchmark::ClobberMemory();
      tr.push_back(seconds_since(s));
    }
    state.SetIterationTime(median(t1));
  }
  const double m0 = median(t0), m1 = median(t1), ms = median(hs), mv = median(hv), mt = median(tr);
  const double n = static_cast<double>(kBig);
  const double gb0 = kChainBytes * n / m0 / 1e9, gb1 = kChainBytes * n / m1 / 1e9, gbs = kChainBytes * n / ms / 1e9;
  const double gbt = kTriadBytes * n / mt / 1e9;
  state.counters["tier0_ms"] = m0 * 1e3;
  state.counters["tier1_ms"] = m1 * 1e3;
  state.counters["hand_tanh_ms"] = ms * 1e3;
  state.counters["triad_ms"] = mt * 1e3;
  state.counters["tier0_GBps"] = gb0;
  state.counters["tier1_GBps"] = gb1;
  state.counters["hand_tanh_GBps"] = gbs;
  state.counters["triad_GBps"] = gbt;
  state.counters["t1_speedup_vs_t0"] = m0 / m1;
  state.counters["t1_GBps_over_triad"] = gb1 / gbt;
  state.counters["t1_speed_vs_hand_tanh"] = ms / m1;
  if (!hv.empty()) {
    state.counters["hand_mvec_ms"] = mv * 1e3;
    state.counters["hand_mvec_GBps"] = kChainBytes * n / mv / 1e9;
    state.counters["t1_speed_vs_hand_mvec"] = mv / m1;
  }
  state.counters["threads"] = threads();
}
BENCHMARK(BM_Gelu16M_Ratios)->Arg(9)->ArgName("rounds")->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---- 64 elements: per-call overhead --------------------------------------------

void BM_Gelu64_Tier0(benchmark::State& state) {
  kiln::Tensor& x = small();
  kiln::jit::set_enabled(false);
  for (auto _ : state) run_chain(x);
  kiln::jit::set_enabled(true);
  state.counters["time/op"] = benchmark::Counter(static_cast<double>(state.iterations()) * kChainOps,
                                               benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Gelu64_Tier0)->Name("BM_Gelu64/kiln_tier0")->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_Gelu64_Tier1(benchmark::State& state) {
  kiln::Tensor& x = small();
  warm_tier1(x);
  const kiln::JitStats j0 = jit();
  for (auto _ : state) run_chain(x);
  const kiln::JitStats j1 = jit();
  const double it = static_cast<double>(state.iterations());
  state.counters["compiled_groups/iter"] = static_cast<double>(j1.group_runs_compiled - j0.group_runs_compiled) / it;
  state.counters["interp_groups/iter"] = static_cast<double>(j1.group_runs_interpreted - j0.group_runs_interpreted) / it;
  state.counters["dynamic_compiles"] = static_cast<double>(j1.dynamic_compiles);  // so far in the process
}
BENCHMARK(BM_Gelu64_Tier1)->Name("BM_Gelu64/kiln_tier1")->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_Gelu64_Ratios(benchmark::State& state) {
  kiln::Tensor& x = small();
  warm_tier1(x);
  // The same chain as a kiln::compile'd function: traced once, then
  // replayed without recording its ops. Checked against tier 0 first.
  auto compiled = kiln::compile(gelu_chain);
  kiln::jit::set_enabled(false);
  const std::vector<float> want = gelu_chain(x).to_vector<float>();
  kiln::jit::set_enabled(true);
  for (int call = 0; call < 2; ++call)  // the traced call, then a replay
    check_close(compiled(x).to_vector<float>().data(), want.data(), kSmall, "kiln::compile'd GELU chain");
  constexpr int kBatch = 200;  // calls per sample
  std::vector<double> t0, t1, tc;
  for (auto _ : state) {
    for (int r = 0; r < 15; ++r) {
      kiln::jit::set_enabled(false);
      auto s = Clock::now();
      for (int i = 0; i < kBatch; ++i) run_chain(x);
      t0.push_back(seconds_since(s) / kBatch);
      kiln::jit::set_enabled(true);
      s = Clock::now();
      for (int i = 0; i < kBatch; ++i) run_chain(x);
      t1.push_back(seconds_since(s) / kBatch);
      s = Clock::now();
      for (int i = 0; i < kBatch; ++i) benchmark::DoNotOptimize(compiled(x).data_ptr<float>());
      tc.push_back(seconds_since(s) / kBatch);
    }
    state.SetIterationTime(median(t1));
  }
  state.counters["tier0_us"] = median(t0) * 1e6;
  state.counters["tier1_us"] = median(t1) * 1e6;
  state.counters["compiled_fn_us"] = median(tc) * 1e6;
  state.counters["t1_speedup_vs_t0"] = median(t0) / median(t1);
  state.counters["compiled_fn_speedup_vs_t0"] = median(t0) / median(tc);
}
BENCHMARK(BM_Gelu64_Ratios)->Iterations(1)->UseManualTime()->Unit(benchmark::kMicrosecond);

// ---- compile latency and the disk cache ------------------------------------------

// 20 distinct kernels: 20 different 6-op elementwise chains (mixes of
// scale, add x, multiply by x, tanh, sigmoid, relu) on one shape. Different
// op mixes, not different shapes: shapes of one op mix form a shape family
// and end up sharing one kernel. The same chains in every process, so that a
// second process with the same KILN_CACHE_DIR finds them on disk.
constexpr int kDistinct = 20;
constexpr std::int64_t kDistinctNumel = 256 << 10;

kiln::Tensor distinct_chain(int k, const kiln::Tensor& x) {
  int code = 37 * k + 11;  // 6 base-6 digits, distinct for every k < 1260
  kiln::Tensor y = x;
  for (int j = 0; j < 6; ++j, code /= 6) {
    switch (code % 6) {
      case 0: y = y * 0.75; break;
      case 1: y = y + x; break;
      case 2: y = kiln::tanh(y); break;
      case 3: y = kiln::sigmoid(y); break;
      case 4: y = y * x; break;
      default: y = kiln::relu(y); break;
    }
  }
  return y;
}

// Runs each distinct chain until it has run compiled once. A chain that is
// hot has its compile requested; the loop waits for it (nothing else runs).
void compile_distinct_chains() {
  kiln::jit::set_enabled(true);
  kiln::Tensor x = kiln::randn({kDistinctNumel});
  x.data_ptr<float>();
  for (int k = 0; k < kDistinct; ++k) {
    const std::uint64_t c0 = jit().group_runs_compiled;
    const auto start = Clock::now();
    while (jit().group_runs_compiled == c0) {
      kiln::Tensor y = distinct_chain(k, x);
      benchmark::DoNotOptimize(y.data_ptr<float>());
      kiln::jit::wait_for_compiles();
      if (seconds_since(start) > 60) die("distinct chain " + std::to_string(k) + " never ran compiled; JIT failures:" + failures());
    }
  }
}

void BM_CompileLatency(benchmark::State& state) {
  for (auto _ : state) {
    kiln::jit::wait_for_compiles();
    kiln::reset_stats();  // compile_ms_* over these compiles only
    const auto start = Clock::now();
    compile_distinct_chains();
    state.SetIterationTime(seconds_since(start));
  }
  const kiln::JitStats j = jit();
  state.counters["compiles"] = static_cast<double>(j.compiles_done);
  state.counters["compile_ms_p50"] = j.compile_ms_p50;
  state.counters["compile_ms_p90"] = j.compile_ms_p90;
  state.counters["compile_ms_max"] = j.compile_ms_max;
  state.counters["disk_hits"] = static_cast<double>(j.disk_cache_hits);
  state.counters["disk_writes"] = static_cast<double>(j.disk_cache_writes);
  state.counters["failed"] = static_cast<double>(j.compiles_failed);
  if (j.disk_cache_hits > 0)
    std::fprintf(stderr, "BM_CompileLatency: %llu kernels came from the disk cache (KILN_CACHE_DIR was pre-warmed), "
                 "so compile_ms_* cover only the rest\n", static_cast<unsigned long long>(j.disk_cache_hits));
}
BENCHMARK(BM_CompileLatency)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

// The disk-cache probe: what a second process with the same KILN_CACHE_DIR
// sees. Run as `jit_bench --kiln-disk-probe`; prints one line.
int disk_probe() {
  const auto start = Clock::now();
  compile_distinct_chains();
  const double wall = seconds_since(start);
  const kiln::JitStats j = jit();
  std::printf("disk_hits=%llu compiles_in_child=%llu disk_load_ms_p50=%.6f child_20_chains_ms=%.3f\n",
              static_cast<unsigned long long>(j.disk_cache_hits), static_cast<unsigned long long>(j.compiles_done),
              j.disk_load_ms_p50, wall * 1e3);
  return 0;
}

void BM_DiskCacheLoad(benchmark::State& state) {
  const char* dir = std::getenv("KILN_CACHE_DIR");
  if (!dir || !*dir || std::strcmp(dir, "off") == 0) {
    state.SkipWithError("no disk cache (KILN_CACHE_DIR is off)");
    return;
  }
  compile_distinct_chains();  // no-op when BM_CompileLatency ran; else compiles and writes them
  kiln::jit::wait_for_compiles();
  std::map<std::string, double> r;
  for (auto _ : state) {
    r = run_child("", "--kiln-disk-probe");  // inherits KILN_CACHE_DIR (set in main when the user did not)
    state.SetIterationTime(r["child_20_chains_ms"] / 1e3);
  }
  put_counters(state, r);
}
BENCHMARK(BM_DiskCacheLoad)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---- main ----------------------------------------------------------------------------

// A fresh cache directory unless the user chose one, removed at exit.
std::string g_temp_cache;

void remove_temp_cache() {
  if (g_temp_cache.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(g_temp_cache, ignored);
}

void choose_cache_dir() {
  const char* dir = std::getenv("KILN_CACHE_DIR");
  if (dir && *dir) {
    benchmark::AddCustomContext("kiln_cache_dir", std::string(dir) + " (set by the user; may be pre-warmed)");
    return;
  }
  char tmpl[] = "/tmp/kiln-bench-cache-XXXXXX";
  if (!mkdtemp(tmpl)) die("mkdtemp failed");
  g_temp_cache = tmpl;
  setenv("KILN_CACHE_DIR", tmpl, 1);
  std::atexit(remove_temp_cache);
  benchmark::AddCustomContext("kiln_cache_dir", g_temp_cache + " (fresh, removed at exit)");
}

}  // namespace

// BENCHMARK_MAIN(), plus the child mode of BM_DiskCacheLoad. (Time to steady
// state: steady_bench.cpp.)
int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--kiln-disk-probe") == 0) return disk_probe();
  choose_cache_dir();
  benchmark::AddCustomContext("kiln_threads", std::to_string(threads()));
  benchmark::AddCustomContext("hand_loop_vector_tanh", vec_tanh().name);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// The rows of the side-by-side comparison with the peers. A Workload is one
// computation on fixed inputs (e.g. "gelu_chain/16M") with several
// implementations (kiln tier 0, kiln steady state, LibTorch eager, a hand
// loop, ...). Every implementation's result is checked against the
// reference implementation before anything of the workload is timed; a
// mismatch fails every row of the workload (an error in the output, and
// workload_main() exits non-zero). Each implementation becomes one Google
// Benchmark row named "<workload>/t<threads>/<impl>", run with repetitions
// randomly interleaved with the other rows, so that a change of load hits
// kiln and its peers alike. scripts/bench-report reads these names.
//
// On one thread, each peer is also timed alternated with kiln's steady
// state in one row, "<workload>/t1/paired_<peer>": round by round, kiln's
// calls then the peer's (or the other way, every other round), the ratio
// taken within each round. On a machine whose speed changes for seconds at
// a time (a shared VM: the MLP's training step went 3.55 <-> 4.7 ms in
// phases, a fixed scalar loop timed beside it by 10-15%),
// interleaved repetitions still leave kiln's and the peer's medians from
// different phases, and their ratio read 0.98x to 1.36x in runs of one
// build. Within a run the rounds' ratio stayed within 1% (1.24 over 300
// rounds); across runs it still moves with the phase (1.24-1.35 for that
// step, 0.64-0.99 for a sum of 16M, bound by memory), less than the
// separate rows' ratio did.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <kiln/kiln.h>

#include "bench_util.h"

namespace {

using Floats = std::vector<float>;

enum class Tier { none, tier0, tier1 };

struct Impl {
  std::string name;
  Tier tier = Tier::none;
  std::function<void()> run;      // one call, its result materialized
  std::function<Floats()> result; // of the last run; empty: nothing to check (a ceiling loop)
  double bytes = 0;                // per call, when not the workload's (the triad moves more)
};

/// A result passes if |got - ref| <= rel * |ref| + abs (+ bound[k], if
/// given: a per-element error bound, as GEMM has), element by element.
struct Tolerance {
  Tolerance(double rel_ = 1e-5, double abs_ = 1e-6, Floats bound_ = {}) : rel(rel_), abs(abs_), bound(std::move(bound_)) {}
  double rel, abs;
  Floats bound;
};

struct Workload {
  std::string name;
  std::vector<Impl> impls;
  std::size_t reference = 0;  // index into impls
  Tolerance tol;
  double bytes = 0, flops = 0, ops = 0;  // per call, for the rate counters (0: not shown)
  bool checked = false;
  std::string failure;  // why the check failed; empty: it passed
};

bool g_any_failure = false;

/// Threads of the peers (LibTorch's, OpenBLAS's); set by the program.
std::function<void(int)> g_peer_threads = [](int) {};

void set_threads(int n) {
  kiln::set_num_threads(n);
  g_peer_threads(n);
}

Impl kiln_impl(Tier tier, std::function<kiln::Tensor()> f, std::string name = {}) {
  auto last = std::make_shared<kiln::Tensor>();
  if (name.empty()) name = tier == Tier::tier0 ? "kiln_tier0" : "kiln_tier1";
  return {std::move(name), tier,
          [f, last] {
            *last = f();
            benchmark::DoNotOptimize(last->data_ptr<float>());
          },
          [last] { return last->contiguous().to_vector<float>(); }};
}

/// A kiln::compile'd call (JIT on): traced once, then replayed with no
/// per-op recording.
inline Impl kiln_compiled(std::function<kiln::Tensor()> f) { return kiln_impl(Tier::tier1, std::move(f), "kiln_compile"); }

/// kiln tier 0 (JIT off) and kiln steady state (JIT on, after compile).
inline std::vector<Impl> kiln_tiers(const std::function<kiln::Tensor()>& f) {
  return {kiln_impl(Tier::tier0, f), kiln_impl(Tier::tier1, f)};
}

/// A peer's prepared op (torch_peer::Op or anything with run() and result()).
template <class Op>
Impl peer_impl(std::string name, std::unique_ptr<Op> op) {
  std::shared_ptr<Op> p = std::move(op);
  return {std::move(name), Tier::none, [p] { p->run(); }, [p] { return p->result(); }};
}

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Runs a kiln implementation with the JIT on until what the library does
// with it is settled: hot, compiled (if it compiles), past the O3 recompile
// after 64 compiled runs, all compiles finished. Bounded by 100 runs or 5 s,
// so that a workload that never compiles costs little.
void warm_tier1(const Impl& i) {
  kiln::jit::set_enabled(true);
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < 100 && (r < 8 || since(start) < 5); ++r) {
    i.run();
    if (r % 8 == 7) kiln::jit::wait_for_compiles();
  }
  kiln::jit::wait_for_compiles();
  i.run();
}

Floats result_of(const Impl& i) {
  kiln::jit::set_enabled(i.tier != Tier::tier0);
  if (i.tier == Tier::tier1) warm_tier1(i);
  i.run();
  kiln::jit::set_enabled(true);
  return i.result();
}

// Returns what is wrong, or an empty string.
std::string compare(const Workload& w, const Impl& i, const Floats& got, const Floats& ref) {
  const std::string what = w.name + " " + i.name + " vs " + w.impls[w.reference].name;
  if (got.size() != ref.size())
    return what + ": " + std::to_string(got.size()) + " elements, expected " + std::to_string(ref.size());
  double max_abs = 0, worst = 0;
  std::size_t bad = 0, first = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    const double d = std::fabs(double(got[k]) - double(ref[k]));
    const double tol = w.tol.rel * std::fabs(double(ref[k])) + w.tol.abs + (w.tol.bound.empty() ? 0.0 : w.tol.bound[k]);
    max_abs = std::max(max_abs, d);
    worst = std::max(worst, d / tol);
    if (!(d <= tol) && bad++ == 0) first = k;
  }
  std::fprintf(stderr, "check %-44s max |diff| %.3g, worst diff/tolerance %.3g\n", what.c_str(), max_abs, worst);
  if (!bad) return {};
  char detail[256];
  std::snprintf(detail, sizeof detail, ": %zu of %zu elements outside |d| <= %g*|ref| + %g%s; first at %zu: got %.9g, reference %.9g",
                bad, got.size(), w.tol.rel, w.tol.abs, w.tol.bound.empty() ? "" : " + bound", first, double(got[first]),
                double(ref[first]));
  return what + detail;
}

void check(Workload& w) {
  w.checked = true;
  if (!w.impls[w.reference].result) return;  // a ceiling: nothing to compare
  const Floats ref = result_of(w.impls[w.reference]);
  for (std::size_t k = 0; k < w.impls.size() && w.failure.empty(); ++k)
    if (k != w.reference && w.impls[k].result) w.failure = compare(w, w.impls[k], result_of(w.impls[k]), ref);
  if (!w.failure.empty()) {
    std::fprintf(stderr, "\n%s: MISMATCH, no row of %s is timed: %s\n\n", program_invocation_short_name, w.name.c_str(),
                 w.failure.c_str());
    g_any_failure = true;
  }
}

// OpenBLAS's idle threads spin for about 0.1 s after a call, TBB's briefly:
// when the library changes from one row to the next, let the previous one's
// threads park first, or they take the cores of the row being timed.
bool g_last_was_kiln = true;
void park_threads() { std::this_thread::sleep_for(std::chrono::milliseconds(200)); }
void park_if_library_changed(const Impl& i) {
  const bool kiln = i.tier != Tier::none;
  if (kiln != g_last_was_kiln) park_threads();
  g_last_was_kiln = kiln;
}

// Sets the threads and checks the workload at its first row; false (the
// row skipped with the mismatch) if its results did not match.
bool ready_to_time(benchmark::State& state, Workload& w, int threads) {
  set_threads(threads);
  if (!w.checked) check(w);
  if (w.failure.empty()) return true;
  state.SkipWithError(("result mismatch: " + w.failure).c_str());
  return false;
}

void run_row(benchmark::State& state, Workload& w, std::size_t k, int threads) {
  if (!ready_to_time(state, w, threads)) return;
  const Impl& i = w.impls[k];
  park_if_library_changed(i);
  kiln::jit::set_enabled(i.tier != Tier::tier0);
  i.run();  // untimed: this thread count's first call
  const kiln::JitStats j0 = kiln::stats().jit;
  for (auto _ : state) i.run();
  const kiln::JitStats j1 = kiln::stats().jit;
  kiln::jit::set_enabled(true);
  const double it = static_cast<double>(state.iterations());
  if (const double bytes = i.bytes > 0 ? i.bytes : w.bytes; bytes > 0)
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes * it));
  if (w.flops > 0)
    state.counters["GFLOP/s"] = benchmark::Counter(w.flops * it, benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  if (w.ops > 0)
    state.counters["time/op"] = benchmark::Counter(w.ops * it, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  if (i.tier != Tier::none) {
    state.counters["compiled_groups/iter"] = static_cast<double>(j1.group_runs_compiled - j0.group_runs_compiled) / it;
    state.counters["interp_groups/iter"] = static_cast<double>(j1.group_runs_interpreted - j0.group_runs_interpreted) / it;
  }
}

constexpr int kRepetitions = 7;

// Rounds of a paired row, and the least time each half of a round takes
// (whole calls: as many as reach it).
constexpr int kPairedRounds = 60;
constexpr double kPairedHalfSeconds = 0.005;

// Seconds per call of `n` calls of `i`.
double time_per_call(const Impl& i, int n) {
  const auto start = std::chrono::steady_clock::now();
  for (int c = 0; c < n; ++c) i.run();
  return since(start) / n;
}

// Calls of `i` that take at least kPairedHalfSeconds, doubling from one.
int calls_per_half(const Impl& i) {
  int n = 1;
  while (n < (1 << 20) && time_per_call(i, n) * n < kPairedHalfSeconds) n *= 2;
  return n;
}

// kiln's steady state (impls[kiln]) alternated with a peer (impls[peer]) on
// one thread: counters kiln_ms and peer_ms (medians over the rounds) and
// peer_over_kiln, the median of each round's peer time over kiln's (> 1:
// kiln faster), which is what to read.
void run_paired_row(benchmark::State& state, Workload& w, std::size_t kiln, std::size_t peer) {
  if (!ready_to_time(state, w, 1)) return;
  const Impl& k = w.impls[kiln];
  const Impl& p = w.impls[peer];
  park_threads();  // the last row's threads, on two threads maybe
  kiln::jit::set_enabled(true);
  const int kiln_calls = calls_per_half(k), peer_calls = calls_per_half(p);
  std::vector<double> kiln_s, peer_s, ratio;
  for (auto _ : state) {
    for (int r = 0; r < kPairedRounds; ++r) {
      double kt, pt;
      if (r % 2 == 0) {
        kt = time_per_call(k, kiln_calls);
        pt = time_per_call(p, peer_calls);
      } else {
        pt = time_per_call(p, peer_calls);
        kt = time_per_call(k, kiln_calls);
      }
      kiln_s.push_back(kt);
      peer_s.push_back(pt);
      ratio.push_back(pt / kt);
    }
    state.SetIterationTime(median(kiln_s));
  }
  g_last_was_kiln = true;  // the last round ends with kiln's calls
  state.counters["kiln_ms"] = median(kiln_s) * 1e3;
  state.counters["peer_ms"] = median(peer_s) * 1e3;
  state.counters["peer_over_kiln"] = median(ratio);
  state.counters["rounds"] = static_cast<double>(ratio.size());
}

/// Registers one row per implementation and thread count. The workload is
/// built now (its inputs exist from the start), checked at its first row.
/// At one thread, also a paired row (run_paired_row) per peer with a result
/// to compare (not a ceiling loop), beside kiln's steady state.
void add_rows(std::shared_ptr<Workload> w, const std::vector<int>& threads, benchmark::TimeUnit unit) {
  for (int t : threads)
    for (std::size_t k = 0; k < w->impls.size(); ++k)
      benchmark::RegisterBenchmark((w->name + "/t" + std::to_string(t) + "/" + w->impls[k].name).c_str(),
                                   [w, k, t](benchmark::State& s) { run_row(s, *w, k, t); })
          ->Repetitions(kRepetitions)
          ->Unit(unit)
          ->UseRealTime();
  if (std::find(threads.begin(), threads.end(), 1) == threads.end()) return;
  std::size_t steady = w->impls.size();
  for (std::size_t k = 0; k < w->impls.size(); ++k)
    if (w->impls[k].name == "kiln_tier1") steady = k;
  if (steady == w->impls.size()) return;
  for (std::size_t k = 0; k < w->impls.size(); ++k)
    if (w->impls[k].tier == Tier::none && w->impls[k].result)
      benchmark::RegisterBenchmark((w->name + "/t1/paired_" + w->impls[k].name).c_str(),
                                   [w, steady, k](benchmark::State& s) { run_paired_row(s, *w, steady, k); })
          ->Iterations(1)
          ->Repetitions(1)
          ->UseManualTime()
          ->Unit(unit);
}

/// BENCHMARK_MAIN() with the repetitions of different rows interleaved in
/// random order (unless the command line says otherwise); exits with 1 if a
/// workload's results did not match.
int workload_main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  std::string interleave = "--benchmark_enable_random_interleaving=true";
  args.insert(args.begin() + 1, interleave.data());
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return g_any_failure ? 1 : 0;
}

}  // namespace

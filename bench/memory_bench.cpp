// Training under a memory budget (kiln::set_memory_budget: values over it
// are evicted and recomputed when used again, DTR) and kiln's unconstrained
// peak memory beside LibTorch's.
//
// budget/<model>/<jit|tier0>/unconstrained: the training loop without a
// budget (after a first run, so that the JIT compiled what it runs); its
// peak_bytes (kiln::stats() after reset_stats()) is what the budgets below
// are fractions of. budget/<model>/<jit|tier0>/<policy>/<pct>: the same
// loop from the same weights, run without a budget and then with a budget
// of pct % of that peak and an eviction policy; counters: x_unconstrained
// (step time over that of the unconstrained run just before, so that a
// change of the machine's load between rows does not count),
// evictions, recomputes, recompute_ms and MiB evicted per timed step, the
// peak reached, and `completed` (0 when kiln::OutOfMemory ended the run:
// the row's label says at which step). Every run checks its losses against
// the unconstrained run's: bit for bit on tier 0 (recomputation runs the
// same kernels), within 1e-4 relative with the JIT on (its fused kernels
// round differently from the tier-0 recomputation); a mismatch fails the row.
//
// peak_rss/residual_stack/{one_step,ten_steps}: one (ten) unconstrained
// training steps of the residual stack in a fresh child process, kiln (JIT
// on) and LibTorch eager: the peak RSS the kernel reports (VmHWM), whole and
// less the process's RSS before the model was built (both children link both
// libraries, so that start is the same program image), and their ratios.
// Ten steps include what the JIT holds once it compiled the step (code and
// LLVM's memory) and the allocators' steady state. kiln's child runs with
// the kernel cache off (KILN_CACHE_DIR=off), so that every kernel is
// compiled in the run whatever ran before: its footprint at its highest
// (ten steps with a warm cache: 14-15 MiB less on the 2-core EPYC). Each
// side's growth is also split into anonymous memory (anon_growth_ratio:
// what the program allocated) and file-backed pages (*_file_growth_MiB:
// library code paged in; over ten steps kiln's is mostly LLVM's compiler,
// 21.5 MiB against LibTorch's 10.3 on that machine).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "bench_util.h"
#include "kiln_models.h"
#include "peers/torch_peer.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kWarmupSteps = 3;
constexpr int kTimedSteps = 5;
constexpr double kMiB = 1 << 20;
const std::vector<int> kBudgetPercents = {100, 70, 50, 35};

// The residual stack of the issue: 8 blocks, width 256, hidden 512, batch
// 1024, 10 classes. Its parameters, their gradients and momentum (24 MiB)
// are 39% of its peak (61 MiB), more than a budget of 35% holds; it also
// runs at 4x the batch, where activations outweigh them (13% of a 191 MiB
// peak), as in the models DTR was measured on.
const torch_peer::ResidualStack kStack{8, 256, 512, 10};
constexpr std::int64_t kStackBatch = 1024;

// A model under training: its forward and its parameters.
struct Net {
  std::function<kiln::Tensor(const kiln::Tensor&)> forward;
  std::vector<kiln::Tensor> parameters;
};

struct Task {
  std::string name;
  std::int64_t batch, inputs, classes;
  std::function<Net()> make;
  bool every_policy;  // compared under each eviction policy, else DTR only
};

Task residual_stack_task(std::int64_t batch = kStackBatch) {
  return {"residual_8x256x512_batch" + std::to_string(batch), batch, kStack.width, kStack.classes, [] {
            ResidualStack m(kStack.blocks, kStack.width, kStack.hidden, kStack.classes);
            return Net{[m](const kiln::Tensor& x) mutable { return m->forward(x); }, m->parameters()};
          },
          true};
}

Task mlp_task() {
  return {"mlp_784-512-512-10_batch128", 128, kMlpDims.front(), kMlpDims.back(), [] {
            Mlp m;
            return Net{[m](const kiln::Tensor& x) mutable { return m->forward(x); }, m->parameters()};
          },
          false};
}

// The residency counters of kiln::Stats that a run reports per step.
struct Residency {
  double evictions = 0, recomputes = 0, recompute_ms = 0, bytes_evicted = 0, ooms_avoided = 0;
  static Residency of(const kiln::Stats& s) {
    return {double(s.evictions), double(s.recomputes), s.recompute_ms, double(s.bytes_evicted), double(s.ooms_avoided)};
  }
};

struct TrainingRun {
  std::vector<float> losses;   // every step's
  std::vector<double> step_s;  // the timed steps'
  Residency timed;             // over the timed steps
  std::uint64_t peak_bytes = 0;
  std::uint64_t parameter_bytes = 0;
  std::string out_of_memory;  // kiln::OutOfMemory's message; empty: the run completed
};

// kWarmupSteps + kTimedSteps steps of SGD with momentum from seed 11's
// weights and batch, under `budget` bytes (0: none). A step is timed up to
// its loss read and every pending op run.
TrainingRun train(const Task& task, std::size_t budget) {
  kiln::manual_seed(11);
  Net net = task.make();
  kiln::Tensor x = kiln::randn({task.batch, task.inputs});
  kiln::Tensor labels = kiln::randint(task.classes, {task.batch});
  kiln::optim::SGD optimizer(net.parameters, kiln::optim::SGDOptions(0.01).momentum(0.9));
  kiln::sync();
  kiln::reset_stats();
  kiln::set_memory_budget(budget);
  TrainingRun run;
  for (const kiln::Tensor& p : net.parameters) run.parameter_bytes += std::uint64_t(p.numel()) * sizeof(float);
  Residency after_warmup;
  try {
    for (int step = 0; step < kWarmupSteps + kTimedSteps; ++step) {
      if (step == kWarmupSteps) after_warmup = Residency::of(kiln::stats());
      const auto start = Clock::now();
      optimizer.zero_grad();
      kiln::Tensor loss = kiln::nn::functional::cross_entropy(net.forward(x), labels);
      loss.backward();
      optimizer.step();
      run.losses.push_back(loss.item<float>());
      kiln::sync();
      if (step >= kWarmupSteps) run.step_s.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
  } catch (const kiln::OutOfMemory& e) {
    run.out_of_memory = e.what();
  }
  const kiln::Stats end = kiln::stats();
  kiln::set_memory_budget(0);
  const Residency total = Residency::of(end);
  run.timed = {total.evictions - after_warmup.evictions, total.recomputes - after_warmup.recomputes,
               total.recompute_ms - after_warmup.recompute_ms, total.bytes_evicted - after_warmup.bytes_evicted,
               total.ooms_avoided - after_warmup.ooms_avoided};
  run.peak_bytes = end.peak_bytes;
  return run;
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / double(v.size());
}

// The unconstrained run of a task, once per task and JIT setting: after a
// first run that lets the JIT compile what the loop runs (and the pool
// fill), so that the budgets are compared with the steady state.
const TrainingRun& unconstrained(const Task& task, bool jit) {
  static std::map<std::string, TrainingRun> runs;
  const std::string key = task.name + (jit ? "/jit" : "/tier0");
  auto it = runs.find(key);
  if (it != runs.end()) return it->second;
  kiln::jit::set_enabled(jit);
  train(task, 0);
  kiln::jit::wait_for_compiles();
  TrainingRun run = train(task, 0);
  if (!run.out_of_memory.empty()) die("OutOfMemory without a budget: " + run.out_of_memory);
  return runs.emplace(key, std::move(run)).first->second;
}

// The largest difference between the losses, relative to the unconstrained ones.
double loss_difference(const std::vector<float>& got, const std::vector<float>& want) {
  double worst = 0;
  for (std::size_t k = 0; k < std::min(got.size(), want.size()); ++k)
    worst = std::max(worst, std::abs(double(got[k]) - double(want[k])) / std::abs(double(want[k])));
  return worst;
}

void unconstrained_row(benchmark::State& state, const Task& task, bool jit) {
  const TrainingRun* run = nullptr;
  for (auto _ : state) {
    run = &unconstrained(task, jit);
    state.SetIterationTime(mean(run->step_s));
  }
  state.counters["peak_MiB"] = double(run->peak_bytes) / kMiB;
  state.counters["step_ms"] = mean(run->step_s) * 1e3;
  // What no budget can evict: the parameters, their gradients and momentum.
  state.counters["weights_grads_momentum_MiB"] = 3 * double(run->parameter_bytes) / kMiB;
}

void budget_row(benchmark::State& state, const std::string& row, const Task& task, bool jit, const std::string& policy,
                int percent) {
  const std::size_t budget = static_cast<std::size_t>(double(unconstrained(task, jit).peak_bytes) * percent / 100);
  TrainingRun free_run, run;
  for (auto _ : state) {
    kiln::jit::set_enabled(jit);
    free_run = train(task, 0);  // the step to compare with, run under the same load of the machine
    kiln::set_eviction_policy(policy);
    run = train(task, budget);
    state.SetIterationTime(mean(run.step_s));
  }
  const double per_step = 1.0 / kTimedSteps;
  state.counters["budget_MiB"] = double(budget) / kMiB;
  state.counters["peak_MiB"] = double(run.peak_bytes) / kMiB;
  state.counters["completed"] = run.out_of_memory.empty() ? 1 : 0;
  if (!run.out_of_memory.empty()) {
    std::fprintf(stderr, "%s: OutOfMemory at step %zu of %d: %s\n", row.c_str(), run.losses.size() + 1,
                 kWarmupSteps + kTimedSteps, run.out_of_memory.c_str());
    state.SetLabel("OutOfMemory at step " + std::to_string(run.losses.size() + 1) + " of " +
                   std::to_string(kWarmupSteps + kTimedSteps));
    state.counters["oom_at_step"] = double(run.losses.size() + 1);
    return;
  }
  const double difference = loss_difference(run.losses, free_run.losses);
  state.counters["loss_rel_diff"] = difference;
  if (jit ? difference > 1e-4 : difference != 0) {
    state.SkipWithError(("losses differ from the unconstrained run's by " + std::to_string(difference) +
                         " relative")
                            .c_str());
    return;
  }
  state.counters["unconstrained_step_ms"] = mean(free_run.step_s) * 1e3;
  state.counters["x_unconstrained"] = mean(run.step_s) / mean(free_run.step_s);
  state.counters["evictions/step"] = run.timed.evictions * per_step;
  state.counters["recomputes/step"] = run.timed.recomputes * per_step;
  state.counters["recompute_ms/step"] = run.timed.recompute_ms * per_step;
  state.counters["evicted_MiB/step"] = run.timed.bytes_evicted / kMiB * per_step;
  state.counters["ooms_avoided/step"] = run.timed.ooms_avoided * per_step;
}

// ---- peak RSS of one step, in fresh processes -------------------------------------------

// A field of /proc/self/status in MiB ("VmHWM", "VmRSS").
double status_mib(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(field + ":", 0) == 0) return std::strtod(line.c_str() + field.size() + 1, nullptr) / 1024;
  die("no " + field + " in /proc/self/status");
}

// What a child measures of itself: the RSS at its start, and at its end the
// peak (VmHWM) and how much of the growth is file-backed pages (RssFile:
// code paged in from shared libraries, e.g. LLVM's compiler while the JIT
// compiles) and how much anonymous memory (RssAnon: what the program
// allocated). Printed as "start_rss_MiB=... peak_rss_MiB=..." for run_child.
struct RssStart {
  double rss = status_mib("VmRSS"), anon = status_mib("RssAnon"), file = status_mib("RssFile");
  void print(const std::string& more = "") const {
    std::printf("start_rss_MiB=%.6g peak_rss_MiB=%.6g anon_growth_MiB=%.6g file_growth_MiB=%.6g%s\n", rss,
                status_mib("VmHWM"), status_mib("RssAnon") - anon, status_mib("RssFile") - file, more.c_str());
  }
};

int kiln_rss_child(int steps) {
  const RssStart start;
  const Task task = residual_stack_task();
  Net net = task.make();
  kiln::Tensor x = kiln::randn({task.batch, task.inputs});
  kiln::Tensor labels = kiln::randint(task.classes, {task.batch});
  kiln::optim::SGD optimizer(net.parameters, kiln::optim::SGDOptions(0.01).momentum(0.9));
  for (int step = 0; step < steps; ++step) {
    optimizer.zero_grad();
    kiln::nn::functional::cross_entropy(net.forward(x), labels).backward();
    optimizer.step();
    kiln::sync();
  }
  start.print(" peak_bytes_MiB=" + std::to_string(double(kiln::stats().peak_bytes) / kMiB));
  return 0;
}

int torch_rss_child(int steps) {
  const RssStart start;
  torch_peer::set_threads(kiln::get_num_threads());
  std::mt19937 gen(11);
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<std::int64_t> label(0, kStack.classes - 1);
  torch_peer::Floats x(std::size_t(kStackBatch * kStack.width));
  std::vector<std::int64_t> labels(kStackBatch);
  for (float& v : x) v = normal(gen);
  for (std::int64_t& l : labels) l = label(gen);
  auto step = torch_peer::residual_stack_classifier_train(x, labels, kStackBatch, kStack,
                                                          torch_peer::Optim::sgd_momentum, 1);
  for (int s = 0; s < steps; ++s) step->run();
  start.print();
  return 0;
}

void peak_rss_row(benchmark::State& state, int steps) {
  std::map<std::string, double> kiln_side, torch_side;
  for (auto _ : state) {
    const auto start = Clock::now();
    kiln_side = run_child("KILN_CACHE_DIR=off", "--kiln-rss-child " + std::to_string(steps));
    torch_side = run_child("", "--torch-rss-child " + std::to_string(steps));
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - start).count());
  }
  const double kiln_growth = kiln_side["peak_rss_MiB"] - kiln_side["start_rss_MiB"];
  const double torch_growth = torch_side["peak_rss_MiB"] - torch_side["start_rss_MiB"];
  state.counters["kiln_peak_rss_MiB"] = kiln_side["peak_rss_MiB"];
  state.counters["torch_peak_rss_MiB"] = torch_side["peak_rss_MiB"];
  state.counters["rss_ratio"] = kiln_side["peak_rss_MiB"] / torch_side["peak_rss_MiB"];
  state.counters["kiln_rss_growth_MiB"] = kiln_growth;
  state.counters["torch_rss_growth_MiB"] = torch_growth;
  state.counters["rss_growth_ratio"] = kiln_growth / torch_growth;
  state.counters["kiln_peak_bytes_MiB"] = kiln_side["peak_bytes_MiB"];
  // At the end; nothing is trimmed, so the end is the peak within a MiB.
  state.counters["kiln_file_growth_MiB"] = kiln_side["file_growth_MiB"];
  state.counters["torch_file_growth_MiB"] = torch_side["file_growth_MiB"];
  state.counters["anon_growth_ratio"] = kiln_side["anon_growth_MiB"] / torch_side["anon_growth_MiB"];
}

void register_all() {
  auto add = [](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)
        ->Iterations(1)
        ->Repetitions(1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  };
  // The fresh-process row first, then tier 0 (where recomputation runs), then the JIT.
  add("peak_rss/residual_stack/one_step", [](benchmark::State& s) { peak_rss_row(s, 1); });
  add("peak_rss/residual_stack/ten_steps", [](benchmark::State& s) { peak_rss_row(s, 10); });
  for (bool jit : {false, true}) {
    for (const Task& task : {residual_stack_task(), residual_stack_task(4 * kStackBatch), mlp_task()}) {
      const std::string prefix = "budget/" + task.name + (jit ? "/jit/" : "/tier0/");
      add(prefix + "unconstrained", [task, jit](benchmark::State& s) { unconstrained_row(s, task, jit); });
      for (const std::string policy : {"dtr", "dtr_local", "lru", "largest"}) {
        if (!task.every_policy && policy != "dtr") continue;
        for (int percent : kBudgetPercents) {
          const std::string row = prefix + policy + "/" + std::to_string(percent) + "pct";
          add(row, [row, task, jit, policy, percent](benchmark::State& s) { budget_row(s, row, task, jit, policy, percent); });
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The children come first: nothing else may touch memory before they measure.
  if (argc == 3 && std::strcmp(argv[1], "--kiln-rss-child") == 0) return kiln_rss_child(std::atoi(argv[2]));
  if (argc == 3 && std::strcmp(argv[1], "--torch-rss-child") == 0) return torch_rss_child(std::atoi(argv[2]));
  benchmark::AddCustomContext("torch", torch_peer::describe());
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

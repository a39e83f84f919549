// Scale-out on this machine: training steps of the MLP 784-512-512-10
// (global batch 128) and the CNN of training_bench.cpp (global batch 32)
// at 1 process x 2 kernel threads, and data parallel
// (nn::parallel::DistributedDataParallel, SGD with momentum) at 2 processes
// x 1 thread with and without overlap, and at 3 processes (the same batch
// per rank as at 2: weak scaling); then an all-reduce size sweep at 2 and 3
// processes and the alpha-beta fit docs/scale-out.md builds its model on.
//
// Every measurement runs in a child: this program again with --child, under
// `mpirun` (KILN_MPIEXEC with KILN_MPIRUN_FLAGS, as the tests) for the
// multi-process rows, so the parent never initializes MPI. A row's time is
// the median over 3 children of each one's median step (manual time, one
// iteration).
//
// Rows and counters:
//   scaleout/<model>/1proc_x2thr            one process on the global batch
//   scaleout/<model>/1proc_x1thr_rank_batch one process, 1 thread, a rank's batch
//                                           at np 2: a rank's compute alone
//   scaleout/<model>/2proc_x1thr[_no_overlap|_1mib_buckets], 3proc_x1thr
//                                           (DDP's default 25 MiB buckets
//                                           hold either model whole)
//     efficiency  1proc_x2thr's step / this step (same global batch, same
//                 cores; at 3proc the global batch is 1.5x: per-rank
//                 throughput over 1proc_x2thr's)
//     overlap     comm_overlap of rank 0 over the timed steps
//     allreduce_ms/step, wait_ms/step, MiB/step: rank 0's all-reduce time,
//                 backward's wait for it, gradient bytes
//   allreduce/np<p>/<bytes>   median time of one all-reduce (SUM, float)
//   allreduce/np<p>/fit       counters alpha_us, B_GBps: the ring model
//                             T = 2(p-1) alpha + 2(p-1)/p n/B, alpha from
//                             the smallest message, B from 1 to 4 MiB
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <kiln/c10d.h>
#include <kiln/distributed/data_parallel.h>
#include <kiln/kiln.h>

#include "bench_util.h"
#include "kiln_models.h"

namespace {

constexpr int kWarmupSteps = 30, kTimedSteps = 40;

struct Model {
  const char* name;
  std::int64_t global_batch;
};
constexpr Model kModels[] = {{"mlp", 128}, {"cnn", 32}};

kiln::Tensor inputs(const std::string& model, std::int64_t batch) {
  return model == "mlp" ? kiln::randn({batch, 784}) : kiln::randn({batch, 1, 28, 28});
}

// Child: kTimedSteps SGD steps after kWarmupSteps (the JIT compiles the step
// meanwhile); `forward` and `params` are the plain module's or the DDP
// wrapper's. Returns the median step in ms. A step ends with every
// parameter materialized, as in training_bench.cpp.
template <class Forward>
double median_step_ms(Forward forward, const std::vector<kiln::Tensor>& params, const std::string& model,
                      std::int64_t batch, const std::function<void()>& after_warmup) {
  kiln::manual_seed(3);
  const kiln::Tensor x = inputs(model, batch), labels = kiln::randint(10, {batch});
  kiln::optim::SGD sgd(params, kiln::optim::SGDOptions(0.01).momentum(0.9));
  std::vector<double> ms;
  for (int step = 0; step < kWarmupSteps + kTimedSteps; ++step) {
    if (step == kWarmupSteps) after_warmup();
    const auto start = std::chrono::steady_clock::now();
    sgd.zero_grad();
    kiln::nn::functional::cross_entropy(forward(x), labels).backward();
    sgd.step();
    for (const kiln::Tensor& p : params) benchmark::DoNotOptimize(p.data_ptr<float>());
    if (step >= kWarmupSteps)
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return median(ms);
}

template <class Net>
int child_step(const std::string& model, std::int64_t batch) {
  Net net;
  const double ms = median_step_ms([&](const kiln::Tensor& x) { return net->forward(x); }, net->parameters(), model,
                                   batch, [] {});
  std::printf("step_ms=%g\n", ms);
  return 0;
}

template <class Net>
int child_ddp(const std::string& model, std::int64_t batch, bool overlap, double bucket_mb) {
  auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
  kiln::nn::parallel::DistributedDataParallel<Net> ddp(
      Net(), pg, kiln::nn::parallel::DistributedDataParallelOptions().overlap(overlap).bucket_cap_mb(bucket_mb));
  const double ms = median_step_ms([&](const kiln::Tensor& x) { return ddp.forward(x); }, ddp.parameters(), model,
                                   batch, [] { kiln::reset_stats(); });
  const kiln::Stats s = kiln::stats();
  if (pg->getRank() == 0)
    std::printf("step_ms=%g overlap=%g allreduce_ms/step=%g wait_ms/step=%g MiB/step=%g\n", ms, s.comm_overlap,
                s.allreduce_ms / kTimedSteps, s.backward_comm_wait_ms / kTimedSteps,
                static_cast<double>(s.comm_bytes_allreduced) / kTimedSteps / (1 << 20));
  return 0;
}

// Float counts of the sweep: 1 to 4M (16 MiB), by factors of 4.
std::vector<std::int64_t> sweep_sizes() {
  std::vector<std::int64_t> n;
  for (std::int64_t k = 1; k <= (std::int64_t{1} << 22); k *= 4) n.push_back(k);
  return n;
}

// "b<bytes>": a sweep size's name in the child's output line.
std::string size_key(std::int64_t floats) {
  std::string key = "b";
  key += std::to_string(floats * 4);
  return key;
}

int child_sweep() {
  auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
  std::string line;
  for (std::int64_t n : sweep_sizes()) {
    std::vector<kiln::Tensor> t{kiln::ones({n})};
    const int reps = n >= (1 << 20) ? 10 : 50;
    std::vector<double> us;
    for (int r = 0; r < reps + 3; ++r) {
      const auto start = std::chrono::steady_clock::now();
      pg->allreduce(t)->wait();
      const auto took = std::chrono::steady_clock::now() - start;
      if (r >= 3) us.push_back(std::chrono::duration<double, std::micro>(took).count());
    }
    line += size_key(n) + "=" + std::to_string(median(us)) + " ";
  }
  if (pg->getRank() == 0) std::printf("%s\n", line.c_str());
  return 0;
}

int child_main(int argc, char** argv) {
  const std::string mode = argv[2];
  if (mode == "sweep") return child_sweep();
  if (argc < 5) die("usage: scaleout_bench --child step|ddp MODEL BATCH [overlap|no_overlap [BUCKET_MB]]");
  const std::string model = argv[3];
  const std::int64_t batch = std::atoll(argv[4]);
  if (mode == "step") return model == "mlp" ? child_step<Mlp>(model, batch) : child_step<Cnn>(model, batch);
  const bool overlap = argc < 6 || std::strcmp(argv[5], "no_overlap") != 0;
  const double bucket_mb = argc > 6 ? std::atof(argv[6]) : 25;
  return model == "mlp" ? child_ddp<Mlp>(model, batch, overlap, bucket_mb)
                        : child_ddp<Cnn>(model, batch, overlap, bucket_mb);
}

std::string mpirun(int processes) {
  return std::string("KILN_NUM_THREADS=1 ") + KILN_MPIEXEC + " -np " + std::to_string(processes) + " " +
         KILN_MPIRUN_FLAGS;
}

// Each value's median over kRuns children (on a shared 2-core machine one
// run can lose its cores for a while), cached by command, so the ratios
// reuse a row's runs.
constexpr int kRuns = 3;
const std::map<std::string, double>& measured(const std::string& env, const std::string& mode) {
  static std::map<std::string, std::map<std::string, double>> cache;
  auto it = cache.find(env + "|" + mode);
  if (it != cache.end()) return it->second;
  std::map<std::string, std::vector<double>> runs;
  for (int r = 0; r < kRuns; ++r)
    for (const auto& [k, v] : run_child(env, "--child " + mode)) runs[k].push_back(v);
  std::map<std::string, double> medians;
  for (const auto& [k, v] : runs) medians[k] = median(v);
  return cache.emplace(env + "|" + mode, std::move(medians)).first->second;
}

void report(benchmark::State& state, const std::map<std::string, double>& r) {
  for (auto _ : state) state.SetIterationTime(r.at("step_ms") / 1e3);
  for (const auto& [k, v] : r)
    if (k != "step_ms") state.counters[k] = v;
}

void register_steps(const Model& m) {
  const std::string model = m.name, global = std::to_string(m.global_batch),
                    rank = std::to_string(m.global_batch / 2);
  const std::string one_process = "KILN_NUM_THREADS=2", step_global = "step " + model + " " + global;
  auto row = [](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
  };
  row("scaleout/" + model + "/1proc_x2thr",
      [=](benchmark::State& s) { report(s, measured(one_process, step_global)); });
  row("scaleout/" + model + "/1proc_x1thr_rank_batch",
      [=](benchmark::State& s) { report(s, measured("KILN_NUM_THREADS=1", "step " + model + " " + rank)); });
  struct Config {
    int processes;
    const char* suffix;  // of the row's name
    const char* options;  // of the child's command line
  };
  for (const Config& c : {Config{2, "", "overlap"}, Config{2, "_no_overlap", "no_overlap"},
                          Config{2, "_1mib_buckets", "overlap 1"}, Config{3, "", "overlap"}}) {
    const int processes = c.processes;
    const std::string mode = "ddp " + model + " " + rank + " " + c.options;
    row("scaleout/" + model + "/" + std::to_string(processes) + "proc_x1thr" + c.suffix,
        [=](benchmark::State& s) {
          std::map<std::string, double> r = measured(mpirun(processes), mode);
          const double base = measured(one_process, step_global).at("step_ms");
          // Global batch per ms, over 1proc_x2thr's: the 3-process step carries 1.5x the images.
          r["efficiency"] = base / r.at("step_ms") * processes / 2.0;
          report(s, r);
        });
  }
}

void register_sweep(int processes) {
  std::string prefix = "allreduce/np";
  prefix += std::to_string(processes) + "/";
  for (std::int64_t n : sweep_sizes()) {
    const std::string key = size_key(n);
    benchmark::RegisterBenchmark((prefix + std::to_string(n * 4)).c_str(), [=](benchmark::State& s) {
      const double us = measured(mpirun(processes), "sweep").at(key);
      for (auto _ : s) s.SetIterationTime(us / 1e6);
    })->Iterations(1)->UseManualTime()->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark((prefix + "fit").c_str(), [=](benchmark::State& s) {
    // Ring: T(n) = 2(p-1) alpha + 2(p-1)/p n/B. The smallest message gives
    // alpha, the slope from 1 to 4 MiB gives B (a least-squares line over
    // the sweep is all large messages and leaves alpha to noise; 16 MiB
    // outlasts the communication thread's spin and varies with the load).
    const auto& r = measured(mpirun(processes), "sweep");
    const std::vector<std::int64_t> n = sweep_sizes();
    const double p = processes, small = r.at(size_key(n.front())) * 1e-6;
    const std::int64_t n1 = n[n.size() - 3], n2 = n[n.size() - 2];  // 1 MiB, 4 MiB
    const double seconds_per_byte =
        (r.at(size_key(n2)) - r.at(size_key(n1))) * 1e-6 / (4.0 * static_cast<double>(n2 - n1));
    for (auto _ : s) s.SetIterationTime(small);
    s.counters["alpha_us"] = small / (2 * (p - 1)) * 1e6;
    s.counters["B_GBps"] = 2 * (p - 1) / p / seconds_per_byte / 1e9;
  })->Iterations(1)->UseManualTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "--child") == 0) return child_main(argc, argv);
  for (const Model& m : kModels) register_steps(m);
  register_sweep(2);
  register_sweep(3);
  benchmark::AddCustomContext("mpirun", mpirun(2));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// kiln::tune: measuring kernels on this machine and remembering the fastest
// way to run them (the autotuner), as `kiln tune` uses it.
//
// A target is a kernel at a shape. Tuning runs the kernel on real buffers
// of that shape under many configs (cache blocks, thread split, packing),
// checks every candidate's result against the default's, keeps the fastest
// and writes it to the tuning database (docs/tuning-db.md). From then on
// every program on this machine that runs the kernel at a shape of the same
// bucket uses the tuned config, unless KILN_AUTOTUNE=0.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::tune {

/// A kernel at a shape. Kernels:
///   "matmul" m x k x n: C[m×n] = A[m×k] · B[k×n], all row-major (torch::mm);
///   "linear" b x i x o: a linear layer's product, x[b×i] · wᵀ with w[o×i]
///                       (torch::nn::functional::linear), b rows of i inputs;
///   "matmul_tn" m x k x n: C = Aᵀ · B with A stored k×m (a linear layer's
///                       weight gradient in backward, dyᵀ · x);
///   "sum" n:            x.sum() over n float32 (a JIT-compiled reduction);
///   "softmax" r x c:    x.softmax(1) over r rows of c float32 (a JIT-compiled row kernel);
///   "exp" n:            x.exp() over n float32 (a JIT-compiled elementwise kernel).
/// The JIT-compiled kernels are tuned over their inner loops' vector width
/// and interleave count, a float32 sum's block and the thread split; the
/// tuned knobs are used by every fused kernel of the same form and shape
/// bucket (docs/tuning-db.md).
struct Target {
  std::string kernel;
  std::vector<std::int64_t> shape;
  /// "matmul 128x512x512".
  std::string text() const;
};

/// The kernels `run` accepts.
std::vector<std::string> kernels();

/// Parses a kernel name and a shape such as "128x512x512". Throws
/// kiln::ValueError naming the text for an unknown kernel, a malformed
/// shape, the wrong number of extents or an extent < 1.
Target parse_target(std::string_view kernel, std::string_view shape);

struct Progress {
  std::uint64_t evaluated = 0;  // candidates measured so far
  std::uint64_t planned = 0;    // candidates the search means to measure
  double elapsed_seconds = 0;
  double best_ms = 0;           // the fastest so far (0 before the first)
};

/// KILN_TUNE_BUDGET: the seconds `kiln tune` searches each target for when
/// no --budget is given (default 20). Throws kiln::ValueError naming a
/// malformed value.
double default_budget_seconds();

struct Options {
  double budget_seconds = 20;  // per target; a search cut short by it stores the best it found
  std::function<void(const Progress&)> on_progress;
  const std::atomic<bool>* cancel = nullptr;  // set it to stop soon; nothing is stored then
};

struct Result {
  Target target;
  std::string key;             // the database key
  std::string config;          // the winner, "kc=256,mc=144,..." or "interleave=4,vector_width=8,..."
  std::string default_config;  // the heuristic's config
  double default_ms = 0;       // heuristic and winner, timed alternately after the search
  double tuned_ms = 0;
  double gflops = 0;           // of the winner (GEMMs; 0 for the JIT-compiled kernels)
  double gbytes_per_second = 0;  // of the winner: its operands' bytes per second (JIT-compiled kernels; 0 for GEMMs)
  std::uint64_t evaluated = 0;
  double tuning_seconds = 0;
  bool complete = false;       // the search ran to its end (not cut by budget or cancel)
  bool stored = false;         // written to the database
};

/// Tunes one target with the kernel threads this process has
/// (kiln::set_num_threads). Blocks the caller for up to about the budget.
Result run(const Target& target, const Options& options = {});

/// One remembered winner.
struct Entry {
  std::string key;
  std::string config;
  double default_ms = 0, tuned_ms = 0, tuning_seconds = 0;
  std::uint64_t evaluated = 0;
  std::int64_t tuned_at = 0;  // unix time
};

/// The database file ("" when there is none: KILN_CACHE_DIR=off and no KILN_TUNING_DB).
std::string database_path();
/// Uses another database file from now on (`kiln tune --db`).
void use_database(const std::string& path);
/// Every entry valid on this machine, sorted by key.
std::vector<Entry> list();
/// Removes the entries whose key starts with `prefix` ("" for all); returns how many.
std::size_t clear(std::string_view prefix = "");

}  // namespace kiln::tune

// The GEMM family of the autotuner: its config space over
// kernels::GemmConfig, the database key of a product, the lookup gemm()
// makes before it runs, and the build-and-measure callback of a tuning
// run (autotune/ searches; only this file knows how a candidate runs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "autotune/config_space.h"
#include "autotune/search.h"
#include "jit/kernels/gemm.h"

namespace kiln::jit::tuning {

/// The database key of a product: element type, layouts of A and B ("n":
/// rows contiguous, "t": read transposed), kernel threads and the bucketed
/// extents, e.g. "gemm/f32/nt/t2/128x512x512" (m x k x n).
std::string gemm_key(const kernels::GemmShape& shape);

/// The choices worth measuring for this product's bucket; blocks larger
/// than the bucket's extents are left out (they would all run alike).
autotune::ConfigSpace gemm_space(const kernels::GemmShape& shape);

autotune::Config to_config(const kernels::GemmConfig& config);
kernels::GemmConfig from_config(const autotune::Config& config);

/// The float32 GEMM layouts `kiln tune` names as kernels (kiln/tune.h):
/// "matmul" (A and B row-major), "linear" (B read transposed: x · wᵀ) and
/// "matmul_tn" (A read transposed: dyᵀ · x).
struct GemmKernelName {
  const char* name;
  bool a_rows_contiguous, b_rows_contiguous;
};
inline constexpr GemmKernelName kGemmKernelNames[] = {
    {"matmul", true, true}, {"linear", true, false}, {"matmul_tn", false, true}};

/// The `kiln tune` target of a product ("linear 128x784x512", m x k x n),
/// or "" when no kernel name covers it (float64; both operands transposed).
std::string gemm_target(const kernels::GemmShape& shape);

/// A tuned config and where it came from: "database" or "online".
struct TunedGemm {
  kernels::GemmConfig config;
  const char* source;
};

/// The tuned config of this product (`key`: its gemm_key), if the database has one (and
/// KILN_AUTOTUNE is not 0), or online tuning found one. Remembered per key
/// until this process changes the database, and for at most a second
/// (another process may tune).
std::optional<TunedGemm> tuned_gemm_config(const kernels::GemmShape& shape, const std::string& key);

/// Whether gemm() reports this product's calls (note_gemm_run): the
/// profiler is on and the product is big enough to be worth tuning.
bool reports_gemm_runs(const kernels::GemmShape& shape);
/// Counts one call of the product under its key (kiln::Stats::tunables);
/// `source` is "heuristic" or TunedGemm::source.
void note_gemm_run(const kernels::GemmShape& shape, const std::string& key, const char* source,
                   std::int64_t nanoseconds);

struct GemmTuneResult {
  std::string key;
  autotune::SearchResult search;
  kernels::GemmConfig best;            // the winner: the heuristic when nothing beat it
  kernels::GemmConfig heuristic;
  autotune::Config best_point, heuristic_point;  // the same as points of the space (what the database holds)
  double best_seconds = 0, heuristic_seconds = 0;  // measured side by side after the search
  bool stored = false;                 // written to the database
};

/// Tunes the product on real buffers of its shape: every candidate's
/// result is compared with the heuristic's before it is timed (a
/// candidate that differs can never win), the search runs within
/// `options` (budget, progress, cancel), and the winner and the heuristic
/// are then timed alternately. The winner is stored in the database when
/// there is one, unless the search was cancelled (a search cut short by
/// its budget stores the best it found).
GemmTuneResult tune_gemm(const kernels::GemmShape& shape, autotune::SearchOptions options);

}  // namespace kiln::jit::tuning

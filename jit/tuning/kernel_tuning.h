// The fused-kernel family of the autotuner: the knobs of a JIT-compiled
// kernel (KernelKnobs: the inner loops' vector width and interleave count,
// a float32 sum's block, the launch's grain and partial chunk), its
// database key, the lookup the JIT makes when it plans a kernel, and the
// compile-and-measure callback of a tuning run (autotune/ searches; only
// this file knows how a candidate runs).
#pragma once

#include <optional>
#include <string>

#include "autotune/config_space.h"
#include "autotune/search.h"
#include "jit/fusion/kernel_spec.h"

namespace kiln::jit::tuning {

/// The database key of a kernel, by form, element type (its first input's),
/// kernel threads and bucketed extents, and for a row kernel what it
/// computes (its instructions' ops joined by '.'):
///   sum/f32/t2/16777216          a partial kernel whose reductions are all sums, by elements;
///   row_reduce/f32/amax.sub.exp.sum.reciprocal.mul/t2/4096x1024
///                                a row kernel (softmax), by rows and row length;
///   elementwise/f32/t2/16777216  a kernel without reductions, by elements.
/// "" for a kernel the family does not tune: no float32/float64 first input, or
/// a partial kernel with a reduction other than sum.
std::string kernel_key(const KernelSpec& spec);

/// The knobs worth measuring for a kernel: a function of its key. Every knob
/// has the value 0, the heuristic's, so the heuristic is a point of the space.
autotune::ConfigSpace kernel_space(const KernelSpec& spec);

KernelKnobs knobs_from_config(const autotune::Config& config);

/// The knobs the database holds for the kernel's key, unless KILN_AUTOTUNE is
/// 0 or the entry is outside the kernel's space (tuned for an older space).
std::optional<KernelKnobs> tuned_knobs(const KernelSpec& spec);

/// Sets `spec.knobs` to tuned_knobs(spec) if there are some (then true). The
/// JIT calls it once per fused group when it plans a segment (not per run).
bool apply_tuned_knobs(KernelSpec& spec);

struct KernelTuneResult {
  std::string key;
  autotune::SearchResult search;
  KernelKnobs best;                              // the winner: the heuristic when nothing beat it
  autotune::Config best_point, heuristic_point;  // as points of the space (what the database holds)
  double best_seconds = 0, heuristic_seconds = 0;  // measured side by side after the search
  bool stored = false;                           // written to the database
};

/// Tunes the kernel (spec.knobs are ignored; one without scalars or dynamic
/// dims, as kernel_targets.h makes) on real buffers of its shape, compiled
/// at O3 through the normal pipeline: every candidate's outputs are compared
/// with the heuristic's within float rounding of a reordered sum (a candidate
/// that differs can never win), the search runs within `options`, and the
/// winner and the heuristic are then timed alternately. The winner is stored
/// in the database when there is one, unless the search was cancelled.
/// Throws InternalError for a kernel the family does not tune.
KernelTuneResult tune_kernel(const KernelSpec& spec, autotune::SearchOptions options);

}  // namespace kiln::jit::tuning

// KernelKnobs: how a fused kernel is compiled and split over threads, apart
// from what it computes. The autotuner's fused-kernel family sets them
// (jit/tuning/kernel_tuning.h); 0 in every field is the heuristic, the code
// and split kiln has always used, so a kernel nobody tuned runs as before.
//
// The codegen knobs enter KernelSpec::key() (when set: an untuned spec keeps
// its key, and the objects cached under it); the launch knobs do not (the
// same code runs). Knobs that change the order of a sum (sum_block,
// partial_chunk, and interleave on a reduction's loop) change its rounding,
// never the thread count's influence on it: partial chunks stay fixed.
#pragma once

#include <cstdint>

namespace kiln::jit {

struct KernelKnobs {
  // Codegen of the inner loops (jit/codegen/lower.cpp).
  std::int32_t vector_width = 0;  // llvm.loop.vectorize.width (1: scalar); 0: the vectorizer's choice
  std::int32_t interleave = 0;    // llvm.loop.interleave.count: vectors in flight, a reduction's
                                  // vector accumulators; 0: the vectorizer's choice
  std::int32_t sum_block = 0;     // inner-loop elements per float block of a float32 sum (and per
                                  // prefetched block of the next row); 0: heuristic_sum_block
  // Launch (jit/tier1/launch.cpp).
  std::int64_t grain = 0;          // elements per task of an elementwise or row kernel (row kernels:
                                   // whole rows); 0: launch's kGrain
  std::int64_t partial_chunk = 0;  // elements per chunk of a partial kernel; 0: kPartialChunk

  bool sets_codegen() const { return vector_width != 0 || interleave != 0 || sum_block != 0; }
  bool operator==(const KernelKnobs&) const = default;
};

/// Elements of the inner loop per block of a blocked float32 sum in a row kernel.
inline constexpr std::int32_t kSumBlock = 256;
/// The same in a partial kernel (a sum over a whole tensor or its leading
/// dims), whose inner loop often does nothing but add: the tree and the
/// double add at each block's end then cost a fifth of the loop. x.sum() of
/// 16M floats on an AVX-512 machine, alternated runs: 2 threads 0.92-1.13
/// ms with blocks of 256, 0.65-0.86 with 4096; lanes fold 64 elements each
/// (128 with AVX2's narrower vectors), within 1e-5 of the sum of magnitudes.
inline constexpr std::int32_t kWholeSumBlock = 4096;
/// The block a sum_block of 0 means, for a partial kernel or a row kernel.
constexpr std::int32_t heuristic_sum_block(bool partial) { return partial ? kWholeSumBlock : kSumBlock; }

}  // namespace kiln::jit

#include "jit/tier1/launch.h"

#include <algorithm>
#include <vector>

#include "jit/kernels/parallel.h"
#include "jit/tier1/partials.h"

namespace kiln::jit {
namespace {

// Below this many elements a kernel runs on the calling thread.
constexpr std::int64_t kGrain = 32768;

void launch_partial(const KernelSpec& spec, CompiledFn fn, void* const* ptrs, const std::int64_t* scalars) {
  const std::int64_t n = spec.numel();
  const std::int64_t chunks = std::max<std::int64_t>(1, (n + kPartialChunk - 1) / kPartialChunk);
  const std::size_t operands = spec.inputs.size() + spec.outputs.size();
  std::vector<std::size_t> reduced;  // the outputs that receive partial slots
  for (std::size_t k = 0; k < spec.outputs.size(); ++k)
    if (is_reduction(spec.instrs[spec.outputs[k].instr].op)) reduced.push_back(k);
  const auto per_chunk = static_cast<std::int64_t>(reduced.size());
  std::vector<PartialSlot> slots(static_cast<std::size_t>(chunks * per_chunk));
  kernels::parallel_ranges(chunks, 1, [&](std::int64_t first, std::int64_t last) {
    std::vector<void*> local(ptrs, ptrs + operands);
    for (std::int64_t c = first; c < last; ++c) {
      for (std::size_t j = 0; j < reduced.size(); ++j)
        local[spec.inputs.size() + reduced[j]] = &slots[c * per_chunk + j];
      fn(c * kPartialChunk, std::min(n, (c + 1) * kPartialChunk), local.data(), scalars);
    }
  });
  for (std::size_t j = 0; j < reduced.size(); ++j) {
    const KernelOutput& out = spec.outputs[reduced[j]];
    combine_partials(spec.instrs[out.instr], &slots[j], per_chunk, chunks, ptrs[spec.inputs.size() + reduced[j]],
                     out.mem.dtype);
  }
}

}  // namespace

void launch(const KernelSpec& spec, CompiledFn fn, void* const* ptrs, const std::int64_t* scalars) {
  if (spec.is_partial()) return launch_partial(spec, fn, ptrs, scalars);
  const std::int64_t range = spec.range();
  // A row kernel's ranges are rows: as many as make kGrain elements.
  const std::int64_t per_item = range > 0 ? std::max<std::int64_t>(1, spec.numel() / range) : 1;
  const std::int64_t grain = std::max<std::int64_t>(1, kGrain / per_item);
  kernels::parallel_ranges(range, grain, [&](std::int64_t b, std::int64_t e) { fn(b, e, ptrs, scalars); });
}

}  // namespace kiln::jit

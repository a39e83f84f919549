#include "jit/tier1/launch.h"

#include <algorithm>
#include <vector>

#include "jit/kernels/parallel.h"
#include "jit/tier1/partials.h"

namespace kiln::jit {
namespace {

// Below this many elements a kernel runs on the calling thread (unless its
// knobs give another grain).
constexpr std::int64_t kGrain = 32768;

// Slots and pointer arrays of a launch live on the stack up to these
// counts: a small reduction costs no allocation (tier 0 reduces a few
// hundred elements in about 150 ns, and the feedback compares the two).
constexpr std::size_t kInlineSlots = 16;
constexpr std::size_t kInlinePointers = 64;

void launch_partial(const KernelSpec& spec, CompiledFn fn, void* const* ptrs, const std::int64_t* scalars,
                    const KernelKnobs& knobs) {
  const std::int64_t n = spec.numel();
  const std::int64_t chunk = knobs.partial_chunk > 0 ? knobs.partial_chunk : kPartialChunk;
  const std::int64_t chunks = std::max<std::int64_t>(1, (n + chunk - 1) / chunk);
  const std::size_t operands = spec.inputs.size() + spec.outputs.size();
  std::size_t inline_reduced[kInlinePointers];  // the outputs that receive partial slots
  std::vector<std::size_t> many_reduced(spec.outputs.size() > kInlinePointers ? spec.outputs.size() : 0);
  std::size_t* reduced = many_reduced.empty() ? inline_reduced : many_reduced.data();
  std::size_t per_chunk = 0;
  for (std::size_t k = 0; k < spec.outputs.size(); ++k)
    if (is_reduction(spec.instrs[spec.outputs[k].instr].op)) reduced[per_chunk++] = k;
  const std::size_t slot_count = static_cast<std::size_t>(chunks) * per_chunk;
  PartialSlot inline_slots[kInlineSlots];
  std::vector<PartialSlot> many_slots(slot_count > kInlineSlots ? slot_count : 0);
  PartialSlot* slots = slot_count > kInlineSlots ? many_slots.data() : inline_slots;
  auto run_chunks = [&](std::int64_t first, std::int64_t last) {
    void* inline_ptrs[kInlinePointers];
    std::vector<void*> many_ptrs(operands > kInlinePointers ? operands : 0);
    void** local = operands > kInlinePointers ? many_ptrs.data() : inline_ptrs;
    std::copy(ptrs, ptrs + operands, local);
    for (std::int64_t c = first; c < last; ++c) {
      for (std::size_t j = 0; j < per_chunk; ++j) local[spec.inputs.size() + reduced[j]] = &slots[c * per_chunk + j];
      fn(c * chunk, std::min(n, (c + 1) * chunk), local, scalars);
    }
  };
  if (chunks == 1) run_chunks(0, 1);
  else kernels::parallel_ranges(chunks, 1, run_chunks);
  for (std::size_t j = 0; j < per_chunk; ++j) {
    const KernelOutput& out = spec.outputs[reduced[j]];
    combine_partials(spec.instrs[out.instr], &slots[j], static_cast<std::int64_t>(per_chunk), chunks,
                     ptrs[spec.inputs.size() + reduced[j]], out.mem.dtype);
  }
}

}  // namespace

void launch(const KernelSpec& spec, CompiledFn fn, void* const* ptrs, const std::int64_t* scalars,
            const KernelKnobs& knobs) {
  if (spec.is_partial()) return launch_partial(spec, fn, ptrs, scalars, knobs);
  const std::int64_t range = spec.range();
  // A row kernel's ranges are rows: as many as make the grain's elements.
  const std::int64_t per_item = range > 0 ? std::max<std::int64_t>(1, spec.numel() / range) : 1;
  const std::int64_t elements = knobs.grain > 0 ? knobs.grain : kGrain;
  const std::int64_t grain = std::max<std::int64_t>(1, elements / per_item);
  kernels::parallel_ranges(range, grain, [&](std::int64_t b, std::int64_t e) { fn(b, e, ptrs, scalars); });
}

}  // namespace kiln::jit

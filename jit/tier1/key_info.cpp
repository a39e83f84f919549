#include "jit/tier1/key_info.h"

#include "jit/tier1/config.h"
#include "jit/tier1/keyed_table.h"
#include "jit/tier1/segment_jit.h"

namespace kiln::jit {
namespace {

// Kernel states from least to most advanced, for "the least advanced of its
// kernels": a key is compiled only when every kernel is.
int progress(KernelState s) {
  switch (s) {
    case KernelState::Failed: return 0;
    case KernelState::Demoted: return 1;
    case KernelState::Interpreted: return 2;
    case KernelState::Queued: return 3;
    case KernelState::Compiling: return 4;
    case KernelState::Compiled: return 5;
  }
  return 2;
}

}  // namespace

bool inspect_key(std::uint64_t segment_key, profiler::KeyJitInfo& out) {
  if (!enabled()) {
    out.state = "off";
    return true;
  }
  std::shared_ptr<SegmentJit> s = KeyedTable<SegmentJit, profiler::JitEvent::KeyEvicted>::find(segment_key);
  if (!s) return false;
  if (!s->planned.load(std::memory_order_acquire)) return true;  // "interpreted"
  // The plan's fields are immutable once `planned` is set.
  out.kernels = static_cast<std::uint32_t>(s->kernels.size());
  bool any = false;
  KernelState least = KernelState::Compiled;
  for (const auto& k : s->kernels) {
    const KernelState state = k->state.load();
    if (!any || progress(state) < progress(least)) least = state;
    any = true;
    if (state == KernelState::Demoted) ++out.deopts;
    std::lock_guard lock(k->mu);
    out.compile_ms += k->compile_ms;
  }
  if (any) out.state = to_string(least);
  return true;
}

}  // namespace kiln::jit

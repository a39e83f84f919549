// kiln's own controls, and the wiring of the layers: the frontend is the
// layer that knows both trace/ and jit/, so it registers the engine as the
// trace's executor when libkiln is loaded.
#include <kiln/frontend/runtime.h>
#include <kiln/memory/memory.h>

#include <atomic>
#include <cstdlib>
#include <iostream>

#include "jit/engine.h"
#include "jit/kernels/gemm_prepacked.h"
#include "jit/rematerialize.h"
#include "jit/symbolizer.h"
#include "jit/tier1/key_info.h"
#include "memory/residency.h"
#include "profiler/call_site.h"
#include "profiler/counters.h"
#include "profiler/report.h"
#include "profiler/settings/settings.h"
#include "trace/executor.h"
#include "trace/recipe.h"
#include "trace/trace_buffer.h"

namespace kiln {
namespace {

using profiler::settings::Id;

std::atomic<bool> g_report_at_exit{false};

// Runs at load time of libkiln, before any user code can record an op.
const bool engine_registered = [] {
  trace::set_executor(&jit::engine());
  trace::set_rematerializer(&jit::rematerialize);
  trace::set_storage_death_hook(&jit::kernels::forget_prepacked);
  profiler::set_key_inspector(&jit::inspect_key);
  profiler::set_symbolizer(&jit::symbolize);
  g_report_at_exit.store(
      profiler::settings::read_at_load(Id::Report, [] { return profiler::settings::read_boolean(Id::Report); }, false));
  std::atexit([] {
    if (g_report_at_exit.load()) print_stats();
  });
  return true;
}();

}  // namespace

void sync() {
  profiler::CallerScope caller(__builtin_return_address(0));
  trace::flush_all(profiler::CutReason::Sync);
}

Stats stats() {
  Stats s = profiler::snapshot();
  memory::MemoryStats m = memory::stats();
  s.allocations = m.allocations;
  s.pool_hits = m.pool_hits;
  s.bytes_allocated_total = m.bytes_allocated_total;
  s.live_bytes = m.live_bytes;
  s.peak_bytes = m.peak_bytes;
  s.pooled_bytes = m.pooled_bytes;
  s.budget_bytes = m.budget_bytes;
  s.oom_errors = m.oom_errors;
  const jit::kernels::PrepackStats packed = jit::kernels::prepack_stats();
  s.prepacked_bytes = packed.bytes;
  s.prepacked_hits = packed.hits;
  const memory::ResidencyStats r = memory::residency_stats();
  s.evictions = r.evictions;
  s.bytes_evicted = r.bytes_evicted;
  s.recomputes = r.recomputes;
  s.recompute_ms = r.recompute_ms;
  s.ooms_avoided = r.ooms_avoided;
  return s;
}

void print_stats(std::ostream& out) { profiler::write_report(out, stats()); }
void print_stats() { print_stats(std::cerr); }

void reset_stats() {
  profiler::reset();
  memory::reset_peak();
}

void set_report_at_exit(bool on) {
  profiler::settings::clear_load_error(Id::Report);
  g_report_at_exit.store(on);
}

}  // namespace kiln

// The knobs' public setters and getters (<kiln/settings.h>), over the layer
// that owns each knob's value.
#include <kiln/error.h>
#include <kiln/memory/memory.h>
#include <kiln/settings.h>

#include "jit/kernels/gemm_prepacked.h"
#include "jit/threads.h"
#include "jit/tier1/disk_cache.h"
#include "jit/tuning/tuning_store.h"
#include "memory/residency.h"
#include "profiler/dump_target.h"
#include "profiler/enabled.h"
#include "profiler/settings/settings.h"
#include "profiler/timeline.h"
#include "trace/trace_buffer.h"

namespace kiln {

namespace knobs = profiler::settings;
using knobs::Id;

void set_memory_budget(std::size_t bytes) { memory::set_budget(bytes); }
std::size_t memory_budget() { return memory::budget(); }
void set_eviction_policy(const std::string& policy) { memory::set_policy(memory::policy_named(policy)); }
std::string eviction_policy() { return memory::policy_name(memory::policy()); }

void set_trace_limit(std::int64_t ops) { trace::set_trace_limit(ops); }
std::int64_t trace_limit() { return trace::trace_limit(); }

void set_num_threads(int n) { jit::set_num_threads(n); }
int get_num_threads() { return jit::num_threads(); }

void set_cache_dir(const std::string& dir) {
  knobs::validate(Id::CacheDir, dir);
  jit::set_disk_cache_dir(kiln::settings::cache_dir_for(dir.empty() ? "off" : dir));
}
std::string cache_dir() { return jit::disk_cache_dir(); }

void set_cache_max_bytes(std::uint64_t bytes) { jit::set_disk_cache_limit(bytes); }
std::uint64_t cache_max_bytes() { return jit::disk_cache_limit(); }

void set_prepack_max_bytes(std::uint64_t bytes) { jit::kernels::set_prepack_limit(bytes); }
std::uint64_t prepack_max_bytes() { return jit::kernels::prepack_limit(); }

void set_profiling(bool on) { profiler::set_enabled(on); }
bool profiling() { return profiler::enabled(); }

void set_trace_events_path(const std::string& path) {
  if (path.empty()) {
    profiler::close_timeline();
  } else {
    knobs::validate(Id::TraceEvents, path);
    if (!profiler::open_timeline(path))
      throw ValueError(detail::cat("[set_trace_events_path] cannot write '", path, "'"));
  }
  knobs::clear_load_error(Id::TraceEvents);
}

void set_dump(const std::string& stages, const std::string& dir) { profiler::set_dump_target(stages, dir); }

void set_autotune_mode(AutotuneMode mode) { jit::tuning::set_autotune_mode(mode); }
AutotuneMode autotune_mode() { return jit::tuning::autotune_mode(); }

void set_autotune_budget(double seconds) { jit::tuning::set_online_budget_seconds(seconds); }
double autotune_budget() { return jit::tuning::online_budget_seconds(); }

}  // namespace kiln

// One line per field: a field added to kiln::Stats is one more `o.field`
// line here and one more row in docs/stats-schema.md.
#include "profiler/stats_json.h"

#include <kiln/version.h>

#include "profiler/json_out.h"
#include "profiler/key_plans.h"

namespace kiln::profiler {
namespace {

void write_key(JsonOut& o, const KeyStats& k) {
  o.begin_object();
  o.key("key", k.key);
  o.field("runs", k.runs);
  o.field("ops", std::uint64_t{k.ops});
  o.field("total_ms", k.total_ms);
  o.field("first_reason", k.first_reason);
  o.field("last_reason", k.last_reason);
  o.field("runs_tier0", k.runs_tier0);
  o.field("runs_tier1", k.runs_tier1);
  o.field("tier0_ms", k.tier0_ms);
  o.field("tier1_ms", k.tier1_ms);
  o.field("bytes", k.bytes);
  o.field("state", k.state);
  o.field("kernels", std::uint64_t{k.kernels});
  o.field("compile_ms", k.compile_ms);
  o.field("deopts", k.deopts);
  o.field("call_site", k.call_site);
  if (std::optional<KeyPlan> plan = plan_of(k.key)) {
    o.field("plan", plan->text);
    o.begin_array("kernel_keys");
    for (std::uint64_t kernel : plan->kernels) o.key({}, kernel);
    o.end_array();
  }
  o.end_object();
}

void write_jit(JsonOut& o, const JitStats& j) {
  o.begin_object("jit");
  o.field("compiles_requested", j.compiles_requested);
  o.field("compiles_done", j.compiles_done);
  o.field("compiles_failed", j.compiles_failed);
  o.field("compiles_timed_out", j.compiles_timed_out);
  o.field("compiles_dropped", j.compiles_dropped);
  o.field("keys_evicted", j.keys_evicted);
  o.field("kernels_evicted", j.kernels_evicted);
  o.field("kernels_resident", j.kernels_resident);
  o.field("compiles_in_flight", j.compiles_in_flight);
  o.field("compiles_queued", j.compiles_queued);
  o.field("demoted", j.demoted);
  o.field("hot_swaps", j.hot_swaps);
  o.field("memory_cache_hits", j.memory_cache_hits);
  o.field("disk_cache_hits", j.disk_cache_hits);
  o.field("disk_cache_writes", j.disk_cache_writes);
  o.field("group_runs_compiled", j.group_runs_compiled);
  o.field("group_runs_interpreted", j.group_runs_interpreted);
  o.field("dynamic_compiles", j.dynamic_compiles);
  o.field("tunes_done", j.tunes_done);
  o.field("tunes_in_flight", j.tunes_in_flight);
  o.field("compile_ms_p50", j.compile_ms_p50);
  o.field("compile_ms_p90", j.compile_ms_p90);
  o.field("compile_ms_p99", j.compile_ms_p99);
  o.field("compile_ms_max", j.compile_ms_max);
  o.field("disk_load_ms_p50", j.disk_load_ms_p50);
  o.field("recent_failures", j.recent_failures);
  o.end_object();
}

void write_stats(JsonOut& o, const Stats& s) {
  o.begin_object("stats");
  o.field("ops_recorded", s.ops_recorded);
  o.field("ops_executed", s.ops_executed);
  o.field("ops_eliminated", s.ops_eliminated);
  o.field("segments_run", s.segments_run);
  o.begin_object("segments_by_reason");
  for (std::size_t i = 0; i < kNumCutReasons; ++i) o.field(Stats::reason_name(i), s.segments_by_reason[i]);
  o.end_object();
  o.field("distinct_keys", s.distinct_keys);
  o.begin_array("top_keys");
  for (const KeyStats& k : s.top_keys) write_key(o, k);
  o.end_array();
  o.field("intermediate_bytes", s.intermediate_bytes);
  o.field("allocations", s.allocations);
  o.field("pool_hits", s.pool_hits);
  o.field("bytes_allocated_total", s.bytes_allocated_total);
  o.field("live_bytes", s.live_bytes);
  o.field("peak_bytes", s.peak_bytes);
  o.field("pooled_bytes", s.pooled_bytes);
  o.field("budget_bytes", s.budget_bytes);
  o.field("oom_errors", s.oom_errors);
  write_jit(o, s.jit);
  o.field("profiling", s.profiling);
  o.begin_array("cut_sites");
  for (const CutSiteStats& c : s.cut_sites) {
    o.begin_object();
    o.field("reason", c.reason);
    o.field("count", c.count);
    o.field("call_site", c.call_site);
    o.field("function", c.function);
    o.field("file", c.file);
    o.field("line", std::uint64_t{c.line});
    o.end_object();
  }
  o.end_array();
  o.begin_array("recent_events");
  for (const EventStats& e : s.recent_events) {
    o.begin_object();
    o.field("kind", e.kind);
    o.field("time_ms", e.time_ms);
    o.field("duration_ms", e.duration_ms);
    o.field("thread", e.thread);
    o.key("key", e.key);
    o.field("detail", e.detail);
    o.field("call_site", e.call_site);
    o.end_object();
  }
  o.end_array();
  o.begin_array("tunables");
  for (const TunableStats& t : s.tunables) {
    o.begin_object();
    o.field("key", t.key);
    o.field("target", t.target);
    o.field("threads", std::uint64_t{t.threads});
    o.field("calls", t.calls);
    o.field("total_ms", t.total_ms);
    o.field("config", t.config);
    o.end_object();
  }
  o.end_array();
  o.end_object();
}

}  // namespace

std::string stats_json(const Stats& stats, const SnapshotMeta& meta) {
  JsonOut o;
  o.begin_object();
  o.field("schema", std::int64_t{kStatsSchema});
  o.field("kiln_version", kVersion);
  o.field("pid", meta.pid);
  o.field("started_at_ms", meta.started_at_ms);
  o.field("written_at_ms", meta.written_at_ms);
  o.field("interval_ms", meta.interval_ms);
  o.field("final", meta.final);
  o.field("program", meta.program);
  o.begin_object("dump");
  o.field("stages", meta.dump_stages);
  o.field("dir", meta.dump_dir);
  o.end_object();
  write_stats(o, stats);
  o.end_object();
  std::string text = o.text();
  text += '\n';
  return text;
}

}  // namespace kiln::profiler

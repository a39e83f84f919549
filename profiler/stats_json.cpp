// The counters come from <kiln/profiler/counters.def>; the structured
// fields (per key, per cut site, per event, per tunable) are one `o.field`
// line each here and one row each in docs/stats-schema.md.
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
#define KILN_JIT_COUNTER(name, type, unit, doc) o.field(#name, j.name);
#include <kiln/profiler/counters.def>
  o.field("recent_failures", j.recent_failures);
  o.end_object();
}

void write_stats(JsonOut& o, const Stats& s) {
  o.begin_object("stats");
#define KILN_STATS_COUNTER(name, type, unit, doc) o.field(#name, s.name);
#include <kiln/profiler/counters.def>
  o.begin_object("segments_by_reason");
  for (std::size_t i = 0; i < kNumCutReasons; ++i) o.field(Stats::reason_name(i), s.segments_by_reason[i]);
  o.end_object();
  o.begin_array("top_keys");
  for (const KeyStats& k : s.top_keys) write_key(o, k);
  o.end_array();
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
    o.field("new_keys", c.new_keys);
    o.field("new_structures", c.new_structures);
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

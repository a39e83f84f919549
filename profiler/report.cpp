#include "profiler/report.h"

#include <cstring>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>

#include "profiler/format.h"

namespace kiln::profiler {
namespace {

constexpr std::size_t kShownSites = 8;
constexpr std::size_t kShownKeys = 8;
// A cut site worth advice: this many cuts, this share of all segments, and
// segments short enough (mean wall time) that what a cut costs -- a few
// microseconds of launch, and no fusion across it -- is a real share.
constexpr std::uint64_t kAdviceMinCuts = 100;
constexpr double kAdviceMinShare = 0.10;
constexpr double kAdviceMaxMeanSegmentMs = 1.0;
// New keys at one site before the report calls it a recompile storm.
constexpr std::uint64_t kStormMinNewKeys = 32;

// "train.cpp:42" when the site has a line, else its whole description.
std::string short_site(const CutSiteStats& site) {
  if (site.line == 0) return site.call_site.empty() ? std::string("(unknown)") : site.call_site;
  const std::size_t slash = site.file.rfind('/');
  return site.file.substr(slash == std::string::npos ? 0 : slash + 1) + ":" + std::to_string(site.line);
}

bool is(const char* reason, const char* name) { return reason && std::strcmp(reason, name) == 0; }

// What the user wrote that cut the trace, as they would name it.
std::string what_cut(const char* reason) {
  if (is(reason, "item") || is(reason, "data_ptr") || is(reason, "to_vector")) return std::string(reason) + "()";
  if (is(reason, "print")) return "printing a tensor";
  if (is(reason, "bool")) return "a tensor used as a bool";
  if (is(reason, "sync")) return "kiln::sync()";
  return reason ? reason : "?";
}

// Mean wall time of a segment run, over the top keys.
double mean_segment_ms(const Stats& s) {
  double ms = 0;
  std::uint64_t runs = 0;
  for (const KeyStats& k : s.top_keys) {
    ms += k.total_ms;
    runs += k.runs;
  }
  return runs ? ms / static_cast<double>(runs) : 0;
}

// One line of advice for a cut site that cuts often, or empty.
std::string advise(const CutSiteStats& site, const Stats& s) {
  const double share = s.segments_run ? static_cast<double>(site.count) / static_cast<double>(s.segments_run) : 0;
  if (site.count < kAdviceMinCuts || share < kAdviceMinShare || mean_segment_ms(s) >= kAdviceMaxMeanSegmentMs)
    return {};
  std::ostringstream a;
  a << "segment cut " << site.count << " times by " << what_cut(site.reason) << " at " << short_site(site) << " ("
    << std::fixed << std::setprecision(1) << mean_segment_ms(s) * 1e3 << " us per segment): ";
  if (is(site.reason, "sync"))
    a << "kiln::sync() is optional; drop it from the loop so that more ops fuse into one segment";
  else if (is(site.reason, "op_limit"))
    a << "the trace grew to its op limit without a read; read a value (or kiln::sync()) once per iteration so each "
         "iteration is one segment the JIT can compile";
  else if (is(site.reason, "cross_thread"))
    a << "a tensor recorded on one thread was used on another; keep producer and consumer on one thread";
  else if (is(site.reason, "borrowed"))
    a << "ops on from_blob memory run one at a time; copy it into a kiln tensor once (clone()) so ops fuse";
  else if (is(site.reason, "thread_exit") || is(site.reason, "memory_pressure"))
    return {};
  else
    a << "move it out of the loop, or read every N iterations: each read ends the segment and waits for it";
  return a.str();
}

// A recompile storm: a site where a quarter or more of the cuts make a key
// never seen before, so that little recurs and little is compiled.
std::string advise_storm(const CutSiteStats& site) {
  if (site.new_keys < kStormMinNewKeys || site.new_keys * 4 < site.count) return {};
  std::ostringstream a;
  a << "recompile storm at " << short_site(site) << ": " << site.new_keys << " of the " << site.count
    << " segments cut there were new keys because ";
  if (site.new_structures * 2 > site.new_keys)
    a << "their op sequence (ops, dtypes or attributes) kept changing; keep the ops of a loop iteration the same "
         "(branch on values with where() rather than on control flow) so that one segment recurs and compiles";
  else
    a << "their shapes kept changing; kiln compiles one kernel for sizes that vary once a structure recurs, but "
         "padding to a few sizes (buckets) lets every one of them compile";
  return a.str();
}

void write_time(std::ostream& t, const Stats& s) {
  double tier0 = 0, tier1 = 0;
  std::uint64_t runs0 = 0, runs1 = 0;
  for (const KeyStats& k : s.top_keys) {
    tier0 += k.tier0_ms;
    tier1 += k.tier1_ms;
    runs0 += k.runs_tier0;
    runs1 += k.runs_tier1;
  }
  t << std::fixed << std::setprecision(1);
  t << "  segments  " << s.segments_run << " run, " << s.distinct_keys << " distinct; top keys: tier 0 " << runs0
    << " runs " << tier0 << " ms, tier 1 " << runs1 << " runs " << tier1 << " ms\n";
  t << "  ops       " << s.ops_recorded << " recorded, " << s.ops_executed << " run, " << s.ops_eliminated
    << " never run (dead)\n";
  const JitStats& j = s.jit;
  t << "  jit       " << j.compiles_done << " compiled, " << j.compiles_failed << " failed, " << j.demoted
    << " demoted, " << j.hot_swaps << " swapped, " << j.disk_cache_hits << " from disk; compile ms p50 "
    << std::setprecision(2) << j.compile_ms_p50 << ", max " << j.compile_ms_max << "\n";
  t << "  memory    peak " << format_bytes(s.peak_bytes) << ", temporaries " << format_bytes(s.intermediate_bytes)
    << "\n";
}

void write_sites(std::ostream& t, const Stats& s) {
  if (s.cut_sites.empty()) return;
  t << "  where the trace was cut:\n";
  for (std::size_t i = 0; i < s.cut_sites.size() && i < kShownSites; ++i) {
    const CutSiteStats& c = s.cut_sites[i];
    t << "    " << std::setw(9) << c.count << "  " << std::left << std::setw(16) << what_cut(c.reason) << std::right
      << "  " << c.call_site << "\n";
  }
}

void write_keys(std::ostream& t, const Stats& s) {
  if (s.top_keys.empty()) return;
  t << "  segments that recur (runs tier 0/1, ms tier 0/1, state, first cut at):\n";
  for (std::size_t i = 0; i < s.top_keys.size() && i < kShownKeys; ++i) {
    const KeyStats& k = s.top_keys[i];
    t << "    0x" << std::hex << std::setw(16) << std::setfill('0') << k.key << std::dec << std::setfill(' ')
      << std::setw(9) << k.runs_tier0 << "/" << std::left << std::setw(7) << k.runs_tier1 << std::right
      << std::setprecision(1) << std::setw(9) << k.tier0_ms << "/" << std::left << std::setw(8) << k.tier1_ms
      << std::setw(12) << (k.state ? k.state : "?") << std::right << k.call_site << "\n";
  }
}

void write_advice(std::ostream& t, const Stats& s) {
  std::vector<std::string> advice;
  for (const CutSiteStats& c : s.cut_sites)
    if (std::string a = advise(c, s); !a.empty()) advice.push_back(std::move(a));
  for (const CutSiteStats& c : s.cut_sites)
    if (std::string a = advise_storm(c); !a.empty()) advice.push_back(std::move(a));
  if (s.distinct_keys >= 32 && s.distinct_keys * 4 >= s.segments_run)
    advice.push_back(std::to_string(s.distinct_keys) + " distinct segments in " + std::to_string(s.segments_run) +
                     " runs: shapes or op sequences keep changing, so little recurs enough to compile");
  if (s.jit.compiles_failed)
    advice.push_back(std::to_string(s.jit.compiles_failed) + " compiles failed; those kernels stay on tier 0" +
                     (s.jit.recent_failures.empty() ? "" : " (latest: " + s.jit.recent_failures.back() + ")"));
  if (s.jit.compiles_timed_out)
    advice.push_back(std::to_string(s.jit.compiles_timed_out) +
                     " compiles ran past their time bound (KILN_COMPILE_TIMEOUT_MS) and were given up; those kernels stay on tier 0");
  if (s.jit.demoted)
    advice.push_back(std::to_string(s.jit.demoted) +
                     " kernels ran slower compiled than interpreted and were demoted (too small to pay off?)");
  if (!s.profiling)
    advice.push_back("profiling is off (KILN_PROFILE=0): no per-segment records, cut sites or events");
  if (advice.empty()) return;
  t << "  advice:\n";
  for (const std::string& a : advice) t << "    - " << a << "\n";
}

}  // namespace

void write_report(std::ostream& out, const Stats& s) {
  std::ostringstream t;  // apart from `out`, so its flags neither matter nor change
  t << "kiln report\n";
  write_time(t, s);
  write_sites(t, s);
  write_keys(t, s);
  write_advice(t, s);
  out << t.str();
}

}  // namespace kiln::profiler

#include <iomanip>
#include <ostream>
#include <sstream>

#include <kiln/profiler/payoff.h>
#include <kiln/profiler/stats.h>

#include "profiler/counters.h"
#include "profiler/format.h"

namespace kiln {

const char* Stats::reason_name(std::size_t i) {
  return profiler::to_string(static_cast<profiler::CutReason>(i < kNumCutReasons ? i : kNumCutReasons));
}

std::ostream& operator<<(std::ostream& out, const Stats& s) {
  using profiler::format_bytes;
  // Built apart so the caller's stream flags (hex, width, precision) neither
  // affect the table nor get changed by it.
  std::ostringstream t;
  t << "kiln stats\n";
  t << "  ops          recorded " << s.ops_recorded << ", executed " << s.ops_executed
    << ", eliminated " << s.ops_eliminated << "\n";
  t << "  segments     " << s.segments_run << " run";
  const char* separator = "; cut by ";
  for (std::size_t i = 0; i < kNumCutReasons; ++i) {
    if (s.segments_by_reason[i] == 0) continue;
    t << separator << Stats::reason_name(i) << " " << s.segments_by_reason[i];
    separator = ", ";
  }
  t << "\n  keys         " << s.distinct_keys << " distinct\n";
  if (!s.top_keys.empty()) {
    t << "      key                   runs     ops    total ms   payoff ms  break-even  last cut\n";
    for (const KeyStats& k : s.top_keys) {
      const KeyRuns r{k.runs_tier0, k.runs_tier1, k.tier0_ms, k.tier1_ms, k.compile_ms};
      const double even = r.break_even_runs();
      t << "      0x" << std::hex << std::setw(16) << std::setfill('0') << k.key << std::dec
        << std::setfill(' ') << std::setw(8) << k.runs << std::setw(8) << k.ops << std::fixed
        << std::setprecision(3) << std::setw(12) << k.total_ms << std::setw(12) << r.payoff_ms() << std::setw(12)
        << (even < 0 ? std::string("-") : std::to_string(static_cast<std::uint64_t>(even + 0.999)) + " runs")
        << "  " << (k.last_reason ? k.last_reason : "?") << "\n";
    }
  }
  t << "  temporaries  " << format_bytes(s.intermediate_bytes) << " allocated inside segments\n";
  t << "  memory       live " << format_bytes(s.live_bytes) << ", peak " << format_bytes(s.peak_bytes)
    << ", pooled " << format_bytes(s.pooled_bytes) << ", budget "
    << (s.budget_bytes ? format_bytes(s.budget_bytes) : "unlimited") << "\n";
  t << "               " << s.allocations << " allocations (" << s.pool_hits << " from the pool), "
    << format_bytes(s.bytes_allocated_total) << " in total, " << s.oom_errors
    << " out-of-memory errors\n";
  const JitStats& j = s.jit;
  t << "  jit          " << j.compiles_done << " of " << j.compiles_requested << " compiles done, "
    << j.compiles_failed << " failed, " << j.compiles_timed_out << " timed out, " << j.compiles_dropped
    << " dropped cold, " << j.compiles_in_flight << " in flight, " << j.demoted << " demoted, "
    << j.hot_swaps << " hot-swaps, " << j.dynamic_compiles << " with dynamic dims, " << j.tunes_done
    << " tuned while running\n";
  t << "               groups run compiled " << j.group_runs_compiled << ", interpreted " << j.group_runs_interpreted
    << "; cache hits " << j.memory_cache_hits << " memory, " << j.disk_cache_hits << " disk\n";
  t << "               kernels resident " << j.kernels_resident << "; evicted " << j.keys_evicted << " keys, "
    << j.kernels_evicted << " kernels\n";
  t << std::fixed << std::setprecision(2) << "               compile ms p50 " << j.compile_ms_p50 << ", p90 "
    << j.compile_ms_p90 << ", max " << j.compile_ms_max << "\n";
  for (const std::string& why : j.recent_failures) t << "               failed: " << why << "\n";
  if (!s.tunables.empty()) {
    t << "  tunables     " << j.tunes_in_flight << " being tuned now; `kiln tune --from` tunes these\n";
    t << "      kernel                       threads     calls    total ms  config\n";
    for (const TunableStats& k : s.tunables)
      t << "      " << std::left << std::setw(28) << (k.target.empty() ? k.key : k.target) << std::right
        << std::setw(8) << k.threads << std::setw(10) << k.calls << std::setw(12) << std::setprecision(3)
        << k.total_ms << "  " << k.config << "\n";
  }
  return out << t.str();
}

}  // namespace kiln

#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>

#include <kiln/profiler/payoff.h>
#include <kiln/profiler/stats.h>

#include "profiler/counters.h"
#include "profiler/format.h"

namespace kiln {

const char* Stats::reason_name(std::size_t i) {
  return profiler::to_string(static_cast<profiler::CutReason>(i < kNumCutReasons ? i : kNumCutReasons));
}

namespace {

constexpr std::size_t kLabelWidth = 15;  // "  jit          "
constexpr std::size_t kLineWidth = 110;

std::string printed(double value, CounterUnit unit) {
  switch (unit) {
    case CounterUnit::Bytes: return profiler::format_bytes(static_cast<std::uint64_t>(value));
    case CounterUnit::BytesOrNone:
      return value == 0 ? "unlimited" : profiler::format_bytes(static_cast<std::uint64_t>(value));
    case CounterUnit::Millis: {
      std::ostringstream t;
      t << std::fixed << std::setprecision(2) << value << " ms";
      return t.str();
    }
    case CounterUnit::Fraction: {
      std::ostringstream t;
      t << std::fixed << std::setprecision(1) << 100 * value << "%";
      return t.str();
    }
    case CounterUnit::Count: break;
  }
  std::ostringstream t;
  t << static_cast<std::uint64_t>(value);
  return t.str();
}

// Lines of "name value" entries, comma-separated and wrapped, under `label`:
// every counter of counters.def in its section, so a new row shows up here
// without a change.
class CounterLines {
 public:
  CounterLines(std::ostringstream& out, const char* label) : out_(out) {
    std::string head = std::string("  ") + label;
    head.resize(kLabelWidth, ' ');
    out_ << head;
    column_ = kLabelWidth;
  }
  ~CounterLines() { out_ << "\n"; }
  void add(std::string_view name, double value, CounterUnit unit) {
    std::string entry(name);
    for (char& c : entry) c = c == '_' ? ' ' : c;
    entry += ' ';
    entry += printed(value, unit);
    if (column_ > kLabelWidth && column_ + 2 + entry.size() > kLineWidth) {
      out_ << ",\n" << std::string(kLabelWidth, ' ');
      column_ = kLabelWidth;
    } else if (column_ > kLabelWidth) {
      out_ << ", ";
      column_ += 2;
    }
    out_ << entry;
    column_ += entry.size();
  }

 private:
  std::ostringstream& out_;
  std::size_t column_;
};

}  // namespace

std::ostream& operator<<(std::ostream& out, const Stats& s) {
  // Built apart so the caller's stream flags (hex, width, precision) neither
  // affect the table nor get changed by it.
  std::ostringstream t;
  t << "kiln stats\n";
  {
    CounterLines line(t, "counters");
#define KILN_STATS_COUNTER(name, type, unit, doc) line.add(#name, static_cast<double>(s.name), CounterUnit::unit);
#include <kiln/profiler/counters.def>
  }
  std::string cuts;
  for (std::size_t i = 0; i < kNumCutReasons; ++i)
    if (s.segments_by_reason[i] != 0)
      cuts += (cuts.empty() ? " " : ", ") + std::string(Stats::reason_name(i)) + " " +
              std::to_string(s.segments_by_reason[i]);
  t << "  segments     cut by" << (cuts.empty() ? " nothing yet" : cuts) << "\n";
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
  const JitStats& j = s.jit;
  {
    CounterLines line(t, "jit");
#define KILN_JIT_COUNTER(name, type, unit, doc) line.add(#name, static_cast<double>(j.name), CounterUnit::unit);
#include <kiln/profiler/counters.def>
  }
  for (const std::string& why : j.recent_failures) t << "               failed: " << why << "\n";
  if (!s.tunables.empty()) {
    t << "  tunables     `kiln tune --from` tunes these\n";
    t << "      kernel                       threads     calls    total ms  config\n";
    for (const TunableStats& k : s.tunables)
      t << "      " << std::left << std::setw(28) << (k.target.empty() ? k.key : k.target) << std::right
        << std::setw(8) << k.threads << std::setw(10) << k.calls << std::setw(12) << std::fixed
        << std::setprecision(3) << k.total_ms << "  " << k.config << "\n";
  }
  return out << t.str();
}

}  // namespace kiln

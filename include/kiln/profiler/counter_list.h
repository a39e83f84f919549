// The counters of kiln::Stats as data: section, name, unit and meaning of
// each row of <kiln/profiler/counters.def>, in declaration order. Programs
// that show counters generically (printers, dashboards, the schema doc's
// test) walk this list instead of naming fields one by one.
#pragma once

#include <cstdint>
#include <string_view>

namespace kiln {

/// How a counter's number reads.
enum class CounterUnit : std::uint8_t {
  Count,        // events or things
  Bytes,        // a size in bytes
  BytesOrNone,  // a size in bytes; 0 means no limit
  Millis,       // milliseconds
  Fraction,     // a share, from 0 to 1
};

/// The unit as the schema doc writes it: "count", "bytes", "bytes (0: none)", "ms", "fraction".
constexpr std::string_view unit_name(CounterUnit unit) {
  switch (unit) {
    case CounterUnit::Count: return "count";
    case CounterUnit::Bytes: return "bytes";
    case CounterUnit::BytesOrNone: return "bytes (0: none)";
    case CounterUnit::Millis: return "ms";
    case CounterUnit::Fraction: return "fraction";
  }
  return "?";
}

/// One row of counters.def.
struct CounterInfo {
  std::string_view section;  // "stats" (a field of kiln::Stats) or "jit" (of kiln::JitStats)
  std::string_view name;     // the field's name, in C++ and in the snapshot file
  CounterUnit unit;
  std::string_view doc;
};

/// Every counter, in declaration order.
inline constexpr CounterInfo kCounters[] = {
#define KILN_STATS_COUNTER(name, type, unit, doc) {"stats", #name, CounterUnit::unit, doc},
#define KILN_JIT_COUNTER(name, type, unit, doc) {"jit", #name, CounterUnit::unit, doc},
#include <kiln/profiler/counters.def>
};

}  // namespace kiln

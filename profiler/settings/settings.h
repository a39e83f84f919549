// The table of kiln's knobs (settings.def) and reading them: each layer asks
// for its knob by id at first use and gets the environment variable's value
// parsed by the knob's rule, or the table's default. A malformed value
// throws kiln::ValueError naming the variable and the value, at that use.
//
// Knobs read while libkiln loads (KILN_PROFILE, KILN_REPORT, KILN_STATS,
// KILN_TRACE_EVENTS) cannot throw there: an exception before main() ends
// the process. read_at_load keeps the error and uses the default; the first
// op recorded then throws it (throw_load_errors), until the knob's setter
// replaces the variable.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>

#include <kiln/setting_parsers.h>

namespace kiln::profiler::settings {

using kiln::settings::TimeUnit;

enum class Kind { Integer, Bytes, Boolean, Duration, Path, Choice, List };

/// How a knob's text is read: the parser and its bounds or words.
struct Rule {
  Kind kind;
  std::int64_t min = 0, max = 0;  // Integer
  TimeUnit unit = TimeUnit::Seconds;  // Duration: what a plain number counts
  double min_duration = 0;            // Duration, in `unit`
  const char* words = "";             // Choice, List: '|'-separated
};

inline constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();

constexpr Rule integer(std::int64_t min, std::int64_t max) { return {Kind::Integer, min, max}; }
constexpr Rule bytes() { return {Kind::Bytes}; }
constexpr Rule boolean() { return {Kind::Boolean}; }
constexpr Rule duration(TimeUnit unit, double min) { return {Kind::Duration, 0, 0, unit, min}; }
constexpr Rule path() { return {Kind::Path}; }
constexpr Rule choice(const char* words) { return {Kind::Choice, 0, 0, TimeUnit::Seconds, 0, words}; }
constexpr Rule list(const char* words) { return {Kind::List, 0, 0, TimeUnit::Seconds, 0, words}; }

enum class Id {
#define KILN_SETTING(id, variable, rule, default_text, setter, doc) id,
#include "profiler/settings/settings.def"
#undef KILN_SETTING
};

/// One row of settings.def.
struct Setting {
  Id id;
  const char* variable;
  Rule rule;
  const char* default_text;  // "" when computed by the code that reads it
  const char* setter;
  const char* doc;
};

/// Every knob, in table order.
std::span<const Setting> all();
const Setting& setting(Id id);

/// The variable's text; nullopt when unset or empty.
std::optional<std::string> text(Id id);

/// The variable's value by the knob's rule, else its default. Each checks
/// that the knob has that kind (a kiln bug otherwise) and throws
/// kiln::ValueError for a malformed value.
std::int64_t read_integer(Id id);
std::uint64_t read_bytes(Id id);
bool read_boolean(Id id);
double read_duration(Id id);  // in the rule's unit
/// Path, Choice and List knobs; "" when unset with no default.
std::string read_text(Id id);

/// Parses `text` by `id`'s rule and returns it as text again (canonical for
/// nothing: a validity check), throwing what read_* would.
void validate(Id id, const std::string& text);

/// For load-time knobs: `read()`, or on kiln::ValueError the knob's pending
/// error is kept and `fallback` returned.
template <class Read, class T>
auto read_at_load(Id id, Read read, T fallback) -> decltype(read());
void keep_load_error(Id id, std::string message);
/// Forgets `id`'s kept error: its setter gave it a value.
void clear_load_error(Id id);
/// Throws the first kept error as kiln::ValueError, if any.
void throw_load_errors();

template <class Read, class T>
auto read_at_load(Id id, Read read, T fallback) -> decltype(read()) {
  try {
    return read();
  } catch (const ValueError& e) {
    keep_load_error(id, e.what());
    return fallback;
  }
}

}  // namespace kiln::profiler::settings

#include "profiler/settings/settings.h"

#include <array>
#include <mutex>
#include <utility>

namespace kiln::profiler::settings {
namespace {

namespace parse = kiln::settings;

constexpr Setting kSettings[] = {
#define KILN_SETTING(id, variable, rule, default_text, setter, doc) \
  {Id::id, variable, rule, default_text, setter, doc},
#include "profiler/settings/settings.def"
#undef KILN_SETTING
};
constexpr std::size_t kCount = std::size(kSettings);

// Ids are positions in the table: the rows' order is the enum's.
constexpr bool ids_are_positions() {
  for (std::size_t i = 0; i < kCount; ++i)
    if (static_cast<std::size_t>(kSettings[i].id) != i) return false;
  return true;
}
static_assert(ids_are_positions());

// The variable's text, else the default; nullopt when neither.
std::optional<std::string> text_or_default(const Setting& s) {
  if (std::optional<std::string> t = parse::environment(s.variable)) return t;
  if (*s.default_text) return std::string(s.default_text);
  return std::nullopt;
}

// A number or boolean knob has a default in the table, or its reader
// handles it unset itself (and never calls read_*).
std::string required_text(const Setting& s) {
  std::optional<std::string> t = text_or_default(s);
  KILN_CHECK(t.has_value(), s.variable, " has no default: its reader must handle it unset");
  return std::move(*t);
}

const Setting& of_kind(Id id, Kind kind) {
  const Setting& s = setting(id);
  KILN_CHECK(s.rule.kind == kind, s.variable, " is read as another kind than its rule");
  return s;
}

// The text read by the rule, as text (Path, Choice, List).
std::string checked_text(const Setting& s, const std::string& t) {
  switch (s.rule.kind) {
    case Kind::Integer: parse::parse_int(s.variable, t, s.rule.min, s.rule.max); return t;
    case Kind::Bytes: parse::parse_bytes(s.variable, t); return t;
    case Kind::Boolean: parse::parse_bool(s.variable, t); return t;
    case Kind::Duration: parse::parse_duration(s.variable, t, s.rule.unit, s.rule.min_duration); return t;
    case Kind::Path: return parse::parse_path(s.variable, t);
    case Kind::Choice: return parse::parse_choice(s.variable, t, s.rule.words);
    case Kind::List: return parse::parse_list(s.variable, t, s.rule.words);
  }
  return t;
}

struct LoadErrors {
  std::mutex mutex;
  std::array<std::string, kCount> messages;
  bool any = false;
};
LoadErrors& load_errors() {
  static LoadErrors* errors = new LoadErrors;  // filled while libkiln loads, read until exit
  return *errors;
}

}  // namespace

std::span<const Setting> all() { return kSettings; }

const Setting& setting(Id id) { return kSettings[static_cast<std::size_t>(id)]; }

std::optional<std::string> text(Id id) { return parse::environment(setting(id).variable); }

std::int64_t read_integer(Id id) {
  const Setting& s = of_kind(id, Kind::Integer);
  return parse::parse_int(s.variable, required_text(s), s.rule.min, s.rule.max);
}

std::uint64_t read_bytes(Id id) {
  const Setting& s = of_kind(id, Kind::Bytes);
  return parse::parse_bytes(s.variable, required_text(s));
}

bool read_boolean(Id id) {
  const Setting& s = of_kind(id, Kind::Boolean);
  return parse::parse_bool(s.variable, required_text(s));
}

double read_duration(Id id) {
  const Setting& s = of_kind(id, Kind::Duration);
  return parse::parse_duration(s.variable, required_text(s), s.rule.unit, s.rule.min_duration);
}

std::string read_text(Id id) {
  const Setting& s = setting(id);
  KILN_CHECK(s.rule.kind == Kind::Path || s.rule.kind == Kind::Choice || s.rule.kind == Kind::List, s.variable,
             " is not a text knob");
  const std::optional<std::string> t = text_or_default(s);
  return t ? checked_text(s, *t) : std::string();
}

void validate(Id id, const std::string& text) { checked_text(setting(id), text); }

void keep_load_error(Id id, std::string message) {
  LoadErrors& e = load_errors();
  std::lock_guard lock(e.mutex);
  e.messages[static_cast<std::size_t>(id)] = std::move(message);
  e.any = true;
}

void clear_load_error(Id id) {
  LoadErrors& e = load_errors();
  std::lock_guard lock(e.mutex);
  e.messages[static_cast<std::size_t>(id)].clear();
}

void throw_load_errors() {
  LoadErrors& e = load_errors();
  std::lock_guard lock(e.mutex);
  if (!e.any) return;
  for (const std::string& message : e.messages)
    if (!message.empty()) throw ValueError(message);
  e.any = false;
}

}  // namespace kiln::profiler::settings

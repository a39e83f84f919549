// The parsers of kiln's settings: the text of an environment variable (or of
// a command-line value) to a typed value, with one set of rules for every
// knob. The knobs themselves are declared in profiler/settings.def; their
// setters are in <kiln/settings.h>.
//
// Every parser takes the variable's name with its text and throws
// kiln::ValueError naming both and what is accepted, e.g.
//   [settings] KILN_CACHE_MAX_BYTES='1Q' is not a byte count: unexpected
//   characters after the number (accepted: 123, 64K, 512M, 2G, 1.5G, 4GiB)
//
// Header-only on purpose: the `kiln` program links no kiln code (it reads
// the files a kiln program writes), yet must read KILN_STATS and
// KILN_CACHE_DIR by the same rules as the library.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <kiln/error.h>

namespace kiln::settings {

/// The value of environment variable `variable`; nullopt when it is unset or
/// empty (an empty variable means "the default", as if unset).
inline std::optional<std::string> environment(const char* variable) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return std::nullopt;
  return std::string(text);
}

/// Throws "[settings] NAME='text' is not <what>: <why> (accepted: <accepted>)".
[[noreturn]] inline void reject(std::string_view variable, std::string_view text, std::string_view what,
                                std::string_view why, std::string_view accepted) {
  throw ValueError(detail::cat("[settings] ", variable, "='", text, "' is not ", what, ": ", why,
                               " (accepted: ", accepted, ")"));
}

namespace detail {

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

/// A decimal number with an optional fraction, as whole and fraction/scale,
/// stopping at the first character that is not part of it; "" when it reads
/// one, else why not. 128 bits hold SIZE_MAX << 40 and an 18-digit fraction
/// << 40, so callers need only check their final result.
struct Decimal {
  unsigned __int128 whole = 0, fraction = 0, scale = 1;
  std::size_t end = 0;
};
inline const char* read_decimal(std::string_view text, Decimal& d) {
  constexpr unsigned __int128 kMax = std::numeric_limits<std::uint64_t>::max();
  constexpr std::size_t kMaxFractionDigits = 18;
  std::size_t i = 0;
  if (i == text.size() || !is_digit(text[i])) return "it does not start with a digit";
  for (; i < text.size() && is_digit(text[i]); ++i) {
    d.whole = d.whole * 10 + static_cast<unsigned>(text[i] - '0');
    if (d.whole > kMax) return "too large";
  }
  if (i < text.size() && text[i] == '.') {
    if (++i == text.size() || !is_digit(text[i])) return "no digit after '.'";
    for (std::size_t digits = 0; i < text.size() && is_digit(text[i]); ++i, ++digits) {
      if (digits >= kMaxFractionDigits) continue;  // beyond any unit's resolution
      d.fraction = d.fraction * 10 + static_cast<unsigned>(text[i] - '0');
      d.scale *= 10;
    }
  }
  d.end = i;
  return "";
}

inline int byte_suffix_shift(char c) {
  switch (lower(c)) {
    case 'k': return 10;
    case 'm': return 20;
    case 'g': return 30;
    case 't': return 40;
    default: return -1;
  }
}

/// Whether `item` is one of the '|'-separated `choices`.
inline bool is_choice(std::string_view choices, std::string_view item) {
  while (true) {
    const std::size_t bar = choices.find('|');
    if (choices.substr(0, bar) == item) return true;
    if (bar == std::string_view::npos) return false;
    choices.remove_prefix(bar + 1);
  }
}

inline std::string with_commas(std::string_view choices) {
  std::string out(choices);
  for (char& c : out)
    if (c == '|') c = ',';
  return out;
}

}  // namespace detail

/// A whole number in [min, max], decimal digits with an optional leading '-'.
inline std::int64_t parse_int(std::string_view variable, std::string_view text, std::int64_t min,
                              std::int64_t max) {
  const std::string accepted = kiln::detail::cat("an integer from ", min, " to ", max);
  const bool negative = !text.empty() && text[0] == '-';
  std::string_view digits = negative ? text.substr(1) : text;
  if (digits.empty()) reject(variable, text, "an integer", "no digits", accepted);
  unsigned __int128 magnitude = 0;
  for (char c : digits) {
    if (!detail::is_digit(c)) reject(variable, text, "an integer", "unexpected characters", accepted);
    magnitude = magnitude * 10 + static_cast<unsigned>(c - '0');
    if (magnitude > (static_cast<unsigned __int128>(1) << 64)) reject(variable, text, "in range", "too large", accepted);
  }
  const __int128 value = negative ? -static_cast<__int128>(magnitude) : static_cast<__int128>(magnitude);
  if (value < min || value > max) reject(variable, text, "in range", "out of range", accepted);
  return static_cast<std::int64_t>(value);
}

/// A byte count: digits with an optional fraction and an optional binary
/// suffix K, M, G or T (any case, optionally followed by B or iB; K = 1024):
/// "123", "64K", "512M", "2G", "1.5G", "4GiB". A plain number is bytes;
/// fractions round down to whole bytes.
inline std::uint64_t parse_bytes(std::string_view variable, std::string_view text) {
  constexpr std::string_view kAccepted = "123, 64K, 512M, 2G, 1.5G, 4GiB";
  detail::Decimal d;
  if (const char* why = detail::read_decimal(text, d); *why) reject(variable, text, "a byte count", why, kAccepted);
  std::size_t i = d.end;
  int shift = 0;
  if (i < text.size() && detail::byte_suffix_shift(text[i]) >= 0) shift = detail::byte_suffix_shift(text[i++]);
  if (shift > 0 && i < text.size() && detail::lower(text[i]) == 'i') ++i;
  if (i < text.size() && detail::lower(text[i]) == 'b') ++i;
  if (i != text.size()) reject(variable, text, "a byte count", "unexpected characters after the number", kAccepted);
  const unsigned __int128 bytes = (d.whole << shift) + ((d.fraction << shift) / d.scale);
  if (bytes > std::numeric_limits<std::uint64_t>::max()) reject(variable, text, "a byte count", "too large", kAccepted);
  return static_cast<std::uint64_t>(bytes);
}

/// 1/0, true/false, on/off, yes/no (any case).
inline bool parse_bool(std::string_view variable, std::string_view text) {
  for (std::string_view yes : {"1", "true", "on", "yes"})
    if (detail::equals_ignoring_case(text, yes)) return true;
  for (std::string_view no : {"0", "false", "off", "no"})
    if (detail::equals_ignoring_case(text, no)) return false;
  reject(variable, text, "a boolean", "unknown word", "1, 0, true, false, on, off, yes, no");
}

/// The unit a duration knob counts in, which a plain number is read in.
enum class TimeUnit { Milliseconds, Seconds };

/// A duration with a unit (ms, s or min) or a plain number in `unit`, e.g.
/// "500", "250ms", "1.5s", "2min"; returned in `unit`. Must be >= `min`
/// (in `unit`), and above 0 when `min` is 0.
inline double parse_duration(std::string_view variable, std::string_view text, TimeUnit unit, double min) {
  const std::string accepted = kiln::detail::cat("a number of ", unit == TimeUnit::Seconds ? "seconds" : "milliseconds",
                                                 " or one with a unit, 250ms, 1.5s, 2min; at least ", min);
  detail::Decimal d;
  if (const char* why = detail::read_decimal(text, d); *why) reject(variable, text, "a duration", why, accepted);
  const std::string_view suffix = text.substr(d.end);
  const double ms_per_unit = unit == TimeUnit::Seconds ? 1000.0 : 1.0;
  double ms_per_suffix = 0;
  if (suffix.empty()) ms_per_suffix = ms_per_unit;
  else if (suffix == "ms") ms_per_suffix = 1;
  else if (suffix == "s") ms_per_suffix = 1000;
  else if (suffix == "min") ms_per_suffix = 60'000;
  else reject(variable, text, "a duration", "unknown unit", accepted);
  const double number = static_cast<double>(d.whole) + static_cast<double>(d.fraction) / static_cast<double>(d.scale);
  const double value = number * ms_per_suffix / ms_per_unit;
  if (value < min || !(value > 0)) reject(variable, text, "a duration", "too short", accepted);
  return value;
}

/// One of the '|'-separated `choices`, e.g. "0|1|online".
inline std::string parse_choice(std::string_view variable, std::string_view text, std::string_view choices) {
  if (!detail::is_choice(choices, text)) reject(variable, text, "a choice", "unknown value", detail::with_commas(choices));
  return std::string(text);
}

/// A comma-separated list of the '|'-separated `items`, or "all": e.g.
/// "ir,asm" of "spec|ir|opt|asm". No empty entries.
inline std::string parse_list(std::string_view variable, std::string_view text, std::string_view items) {
  const std::string accepted = "all, or a comma list of " + detail::with_commas(items);
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    if (item != "all" && !detail::is_choice(items, item))
      reject(variable, text, "a list", item.empty() ? "an empty entry" : "an unknown entry", accepted);
    if (comma == std::string_view::npos) return std::string(text);
    rest.remove_prefix(comma + 1);
  }
}

/// A file or directory name: anything without control characters (which a
/// real path almost never has, and a quoting mistake often does).
inline std::string parse_path(std::string_view variable, std::string_view text) {
  for (char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      reject(variable, text, "a path", "it holds a control character", "a file or directory name");
  return std::string(text);
}

/// The kernel cache directory for KILN_CACHE_DIR's value `setting`
/// (nullopt when unset): "off" is none (""), any other value that
/// directory; unset, $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln, else none.
inline std::string cache_dir_for(const std::optional<std::string>& setting) {
  if (setting) return *setting == "off" ? std::string() : *setting;
  // Not kiln's variables: the platform's, read as the XDG spec says.
  if (std::optional<std::string> xdg = environment("XDG_CACHE_HOME")) return *xdg + "/kiln";
  if (std::optional<std::string> home = environment("HOME")) return *home + "/.cache/kiln";
  return {};
}

}  // namespace kiln::settings

#include <cstdint>
#include <limits>

#include <kiln/error.h>
#include <kiln/memory/memory.h>

namespace kiln::memory {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

int suffix_shift(char c) {
  switch (lower(c)) {
    case 'k': return 10;
    case 'm': return 20;
    case 'g': return 30;
    case 't': return 40;
    default: return -1;
  }
}

}  // namespace

std::size_t parse_bytes(std::string_view text) {
  auto error = [&](const char* why) {
    return ValueError(detail::cat("[memory] cannot read '", text, "' as a byte count: ", why,
                                  " (expected e.g. 123, 64K, 512M, 2G, 1.5G)"));
  };
  // 128 bits hold SIZE_MAX << 40 and an 18-digit fraction << 40, so only the
  // final result needs a range check.
  using Wide = unsigned __int128;
  constexpr Wide kMax = std::numeric_limits<std::size_t>::max();
  constexpr std::size_t kMaxFractionDigits = 18;

  std::size_t i = 0;
  if (i == text.size() || !is_digit(text[i])) throw error("it does not start with a digit");
  Wide whole = 0;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    whole = whole * 10 + static_cast<unsigned>(text[i] - '0');
    if (whole > kMax) throw error("too large");
  }
  Wide fraction = 0, scale = 1;
  if (i < text.size() && text[i] == '.') {
    if (++i == text.size() || !is_digit(text[i])) throw error("no digit after '.'");
    for (std::size_t digits = 0; i < text.size() && is_digit(text[i]); ++i, ++digits) {
      if (digits == kMaxFractionDigits) continue;  // beyond a byte's resolution
      fraction = fraction * 10 + static_cast<unsigned>(text[i] - '0');
      scale *= 10;
    }
  }
  int shift = 0;
  if (i < text.size() && suffix_shift(text[i]) >= 0) shift = suffix_shift(text[i++]);
  if (shift > 0 && i < text.size() && lower(text[i]) == 'i') ++i;
  if (i < text.size() && lower(text[i]) == 'b') ++i;
  if (i != text.size()) throw error("unexpected characters after the number");

  const Wide bytes = (whole << shift) + ((fraction << shift) / scale);
  if (bytes > kMax) throw error("too large");
  return static_cast<std::size_t>(bytes);
}

}  // namespace kiln::memory

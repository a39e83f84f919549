#include "tools/format.h"

#include <cmath>
#include <cstdio>

namespace kiln::tools {

std::string short_count(double n) {
  static const char* suffix[] = {"", "k", "M", "G", "T"};
  int i = 0;
  while (std::fabs(n) >= 1000 && i < 4) n /= 1000, ++i;
  char buf[32];
  if (i == 0) std::snprintf(buf, sizeof buf, "%.0f", n);
  else std::snprintf(buf, sizeof buf, "%.1f%s", n, suffix[i]);
  return buf;
}

std::string bytes(double n) {
  static const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (n >= 1024 && i < 4) n /= 1024, ++i;
  char buf[32];
  if (i == 0) std::snprintf(buf, sizeof buf, "%.0f B", n);
  else std::snprintf(buf, sizeof buf, "%.1f %s", n, unit[i]);
  return buf;
}

std::string millis(double ms) {
  char buf[32];
  if (ms >= 1000) std::snprintf(buf, sizeof buf, "%.1f s", ms / 1000);
  else if (ms >= 10) std::snprintf(buf, sizeof buf, "%.1f ms", ms);
  else std::snprintf(buf, sizeof buf, "%.2f ms", ms);
  return buf;
}

std::string age(std::int64_t ms) {
  std::int64_t s = ms / 1000;
  if (s < 120) return std::to_string(s) + " s";
  if (s < 7200) return std::to_string(s / 60) + " min";
  if (s < 172800) return std::to_string(s / 3600) + " h";
  return std::to_string(s / 86400) + " d";
}

std::string cell(const std::string& s, int width, bool right) {
  if (width <= 0) return {};
  auto w = static_cast<std::size_t>(width);
  if (s.size() >= w) return s.substr(0, w);
  std::string pad(w - s.size(), ' ');
  return right ? pad + s : s + pad;
}

}  // namespace kiln::tools

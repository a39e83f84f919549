#include "profiler/json_out.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "profiler/json_escape.h"

namespace kiln::profiler {

std::string hex_key(std::uint64_t key) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, key);
  return buf;
}

void JsonOut::name(std::string_view n) {
  if (!first_.empty()) {
    if (!first_.back()) text_ += ',';
    first_.back() = false;
    text_ += '\n';
    text_.append(2 * first_.size(), ' ');
  }
  if (!n.empty()) {
    string(n);
    text_ += ": ";
  }
}

void JsonOut::string(std::string_view s) {
  text_ += '"';
  append_json_escaped(text_, s);
  text_ += '"';
}

void JsonOut::open(std::string_view n, char bracket) {
  name(n);
  text_ += bracket;
  first_.push_back(true);
}

void JsonOut::close(char bracket) {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) {
    text_ += '\n';
    text_.append(2 * first_.size(), ' ');
  }
  text_ += bracket;
}

void JsonOut::begin_object(std::string_view n) { open(n, '{'); }
void JsonOut::end_object() { close('}'); }
void JsonOut::begin_array(std::string_view n) { open(n, '['); }
void JsonOut::end_array() { close(']'); }

void JsonOut::field(std::string_view n, std::uint64_t v) {
  name(n);
  text_ += std::to_string(v);
}

void JsonOut::field(std::string_view n, std::int64_t v) {
  name(n);
  text_ += std::to_string(v);
}

void JsonOut::field(std::string_view n, double v) {
  name(n);
  if (!std::isfinite(v)) {
    text_ += "null";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  text_ += buf;
}

void JsonOut::field(std::string_view n, bool v) {
  name(n);
  text_ += v ? "true" : "false";
}

void JsonOut::field(std::string_view n, std::string_view v) {
  name(n);
  string(v);
}

void JsonOut::field(std::string_view n, const char* v) {
  if (v) return field(n, std::string_view(v));
  name(n);
  text_ += "null";
}

void JsonOut::field(std::string_view n, const std::vector<std::string>& v) {
  begin_array(n);
  for (const std::string& s : v) field({}, std::string_view(s));
  end_array();
}

void JsonOut::key(std::string_view n, std::uint64_t v) { field(n, std::string_view(hex_key(v))); }

}  // namespace kiln::profiler

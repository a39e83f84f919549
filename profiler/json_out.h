// A minimal streaming JSON writer for the stats snapshot: objects, arrays,
// numbers and escaped strings, with commas placed for the caller. One
// `field(name, value)` call per member keeps the snapshot's serializer at one
// line per Stats field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::profiler {

class JsonOut {
 public:
  void begin_object(std::string_view name = {});
  void end_object();
  void begin_array(std::string_view name = {});
  void end_array();

  void field(std::string_view name, std::uint64_t v);
  void field(std::string_view name, std::int64_t v);
  void field(std::string_view name, double v);  // NaN and infinities become null
  void field(std::string_view name, bool v);
  void field(std::string_view name, std::string_view v);
  void field(std::string_view name, const char* v);  // null pointer becomes null
  void field(std::string_view name, const std::vector<std::string>& v);
  /// A 64-bit key as 16 lowercase hex digits (a string: JSON numbers lose bits past 2^53).
  void key(std::string_view name, std::uint64_t v);

  const std::string& text() const { return text_; }

 private:
  void name(std::string_view n);  // the comma, indentation and "n": of the next member
  void open(std::string_view n, char bracket);
  void close(char bracket);
  void string(std::string_view s);
  std::string text_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
};

/// 16 lowercase hex digits, the form keys take everywhere kiln prints them.
std::string hex_key(std::uint64_t key);

}  // namespace kiln::profiler

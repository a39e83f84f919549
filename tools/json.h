// A small JSON reader for the stats snapshot: the `kiln` program reads the
// file a kiln process writes and links nothing of kiln's internals.
// Numbers are doubles (keys are hex strings in the snapshot, so no 64-bit
// integer needs more than a double's 53 bits).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::tools {

class Json {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Kind kind() const { return kind_; }
  bool is_object() const { return kind_ == Kind::Object; }

  /// Member `name` of an object, or a null value when absent or not an object.
  const Json& operator[](std::string_view name) const;
  /// The elements of an array (empty for anything else).
  const std::vector<Json>& items() const { return items_; }
  const std::map<std::string, Json, std::less<>>& members() const { return members_; }

  /// The value, or `fallback` when it has another kind.
  double number(double fallback = 0) const { return kind_ == Kind::Number ? number_ : fallback; }
  std::string string(std::string_view fallback = "") const {
    return kind_ == Kind::String ? string_ : std::string(fallback);
  }
  bool boolean(bool fallback = false) const { return kind_ == Kind::Bool ? bool_ : fallback; }
  bool has(std::string_view name) const { return members_.find(name) != members_.end(); }

  /// Parses `text`; throws std::runtime_error naming the byte offset.
  static Json parse(std::string_view text);

 private:
  friend class JsonParser;
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<Json> items_;
  std::map<std::string, Json, std::less<>> members_;
};

}  // namespace kiln::tools

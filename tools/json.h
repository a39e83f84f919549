// Read-only access to a JSON document for the `kiln` program, which reads the
// files a kiln process writes and links nothing of kiln's internals.
//
// Parsing is nlohmann::json's (strict RFC 8259: escapes, \u digits, surrogate
// pairs and UTF-8 are checked). Reading is lax on purpose: a reader must
// ignore what it does not know and tolerate what an older writer left out
// (docs/stats-schema.md), so a missing member or a value of another kind
// reads as a default instead of throwing.
//
// A Json is a view: it shares the parsed document, so copies are cheap and
// stay valid after the value they came from is gone. Elements and members
// are returned by value; keep them by value, not by reference.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kiln::tools {

class Json {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  /// A null value.
  Json();

  /// Parses `text`; throws std::runtime_error saying what is wrong and at
  /// which byte.
  static Json parse(std::string_view text);

  Kind kind() const;
  bool is_object() const { return kind() == Kind::Object; }
  bool is_null() const { return kind() == Kind::Null; }

  /// Member `name` of an object, or a null value when absent or not an object.
  Json operator[](std::string_view name) const;
  bool has(std::string_view name) const;
  /// The elements of an array (empty for anything else).
  std::vector<Json> items() const;
  /// The members of an object in name order (empty for anything else).
  std::vector<std::pair<std::string, Json>> members() const;

  /// The value, or `fallback` when it has another kind.
  double number(double fallback = 0) const;
  std::string string(std::string_view fallback = "") const;
  bool boolean(bool fallback = false) const;

 private:
  Json(std::shared_ptr<const nlohmann::json> document, const nlohmann::json* value);
  std::shared_ptr<const nlohmann::json> document_;  // keeps `value_` alive
  const nlohmann::json* value_;
};

}  // namespace kiln::tools

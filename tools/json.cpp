#include "tools/json.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace kiln::tools {
namespace {

const nlohmann::json& null_value() {
  static const nlohmann::json null;
  return null;
}

}  // namespace

Json::Json() : value_(&null_value()) {}

Json::Json(std::shared_ptr<const nlohmann::json> document, const nlohmann::json* value)
    : document_(std::move(document)), value_(value) {}

Json Json::parse(std::string_view text) {
  try {
    auto document = std::make_shared<const nlohmann::json>(nlohmann::json::parse(text));
    const nlohmann::json* root = document.get();
    return Json(std::move(document), root);
  } catch (const nlohmann::json::parse_error& e) {
    // e.what() reads "[json.exception.parse_error.101] parse error at line 1, column 5: ..."; the
    // part after "parse error" is the useful one.
    std::string what = e.what();
    std::size_t at = what.find("parse error");
    throw std::runtime_error(at == std::string::npos ? what : what.substr(at));
  }
}

Json::Kind Json::kind() const {
  switch (value_->type()) {
    case nlohmann::json::value_t::boolean: return Kind::Bool;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: return Kind::Number;
    case nlohmann::json::value_t::string: return Kind::String;
    case nlohmann::json::value_t::array: return Kind::Array;
    case nlohmann::json::value_t::object: return Kind::Object;
    default: return Kind::Null;
  }
}

Json Json::operator[](std::string_view name) const {
  if (!value_->is_object()) return {};
  auto it = value_->find(name);
  return it == value_->end() ? Json() : Json(document_, &*it);
}

bool Json::has(std::string_view name) const { return value_->is_object() && value_->contains(name); }

std::vector<Json> Json::items() const {
  std::vector<Json> out;
  if (!value_->is_array()) return out;
  out.reserve(value_->size());
  for (const nlohmann::json& item : *value_) out.push_back(Json(document_, &item));
  return out;
}

std::vector<std::pair<std::string, Json>> Json::members() const {
  std::vector<std::pair<std::string, Json>> out;
  if (!value_->is_object()) return out;
  for (auto it = value_->begin(); it != value_->end(); ++it) out.emplace_back(it.key(), Json(document_, &it.value()));
  return out;
}

double Json::number(double fallback) const { return value_->is_number() ? value_->get<double>() : fallback; }

std::string Json::string(std::string_view fallback) const {
  return value_->is_string() ? value_->get<std::string>() : std::string(fallback);
}

bool Json::boolean(bool fallback) const { return value_->is_boolean() ? value_->get<bool>() : fallback; }

}  // namespace kiln::tools

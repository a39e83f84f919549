#include "tools/json.h"

#include <cstdlib>
#include <stdexcept>

namespace kiln::tools {

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : s_(text) {}

  Json document() {
    Json v = value(0);
    skip_space();
    if (pos_ != s_.size()) fail("text after the value");
    return v;
  }

 private:
  // Deeper than any snapshot; bounds the recursion on hostile input.
  static constexpr int kMaxDepth = 64;

  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string(what) + " at byte " + std::to_string(pos_));
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  bool take(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) return ++pos_, true;
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail(pos_ >= s_.size() ? "unexpected end of file" : "unexpected character");
  }
  bool word(std::string_view w) {
    if (s_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }

  Json value(int depth) {
    if (depth > kMaxDepth) fail("nesting too deep");
    skip_space();
    if (pos_ >= s_.size()) fail("unexpected end of file");
    Json v;
    char c = s_[pos_];
    if (c == '{') {
      ++pos_;
      v.kind_ = Json::Kind::Object;
      if (take('}')) return v;
      do {
        skip_space();
        std::string name = string_literal();
        expect(':');
        v.members_.insert_or_assign(std::move(name), value(depth + 1));
      } while (take(','));
      expect('}');
    } else if (c == '[') {
      ++pos_;
      v.kind_ = Json::Kind::Array;
      if (take(']')) return v;
      do v.items_.push_back(value(depth + 1));
      while (take(','));
      expect(']');
    } else if (c == '"') {
      v.kind_ = Json::Kind::String;
      v.string_ = string_literal();
    } else if (word("true")) {
      v.kind_ = Json::Kind::Bool;
      v.bool_ = true;
    } else if (word("false")) {
      v.kind_ = Json::Kind::Bool;
    } else if (word("null")) {
    } else {
      number(v);
    }
    return v;
  }

  void number(Json& v) {
    std::size_t start = pos_;
    while (pos_ < s_.size() && std::string_view("+-.0123456789eE").find(s_[pos_]) != std::string_view::npos) ++pos_;
    if (pos_ == start) fail("unexpected character");
    std::string text(s_.substr(start, pos_ - start));
    char* end = nullptr;
    v.number_ = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) fail("malformed number");
    v.kind_ = Json::Kind::Number;
  }

  std::string string_literal() {
    if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a string");
    ++pos_;
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) fail("unterminated string");
      char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) fail("unterminated string");
      char e = s_[pos_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': out += unicode_escape(); break;
        default: out += e;
      }
    }
  }

  // \uXXXX as UTF-8 (the snapshot only escapes control characters).
  std::string unicode_escape() {
    if (pos_ + 4 > s_.size()) fail("bad \\u escape");
    unsigned cp = static_cast<unsigned>(std::strtoul(std::string(s_.substr(pos_, 4)).c_str(), nullptr, 16));
    pos_ += 4;
    std::string out;
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return out;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

const Json& Json::operator[](std::string_view name) const {
  static const Json null;
  auto it = members_.find(name);
  return it == members_.end() ? null : it->second;
}

Json Json::parse(std::string_view text) { return JsonParser(text).document(); }

}  // namespace kiln::tools

// ConfigSpace and the text form of a Config (used in logs, the CLI and keys).
#include "autotune/config_space.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <stdexcept>

namespace kiln::autotune {
namespace {

bool valid_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::optional<std::int64_t> parse_int(std::string_view text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

std::string to_string(const Config& config) {
  std::string out;
  for (const auto& [name, value] : config) {
    if (!out.empty()) out += ',';
    out += name;
    out += '=';
    out += std::to_string(value);
  }
  return out;
}

std::optional<Config> parse_config(std::string_view text) {
  Config config;
  if (text.empty()) return config;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    const std::string_view name = item.substr(0, eq);
    const auto value = parse_int(item.substr(eq + 1));
    if (!valid_name(name) || !value || !config.emplace(std::string(name), *value).second) return std::nullopt;
    if (comma == std::string_view::npos) return config;
    text.remove_prefix(comma + 1);
  }
}

ConfigSpace& ConfigSpace::add(std::string name, std::vector<std::int64_t> values) {
  if (!valid_name(name)) throw std::invalid_argument("[autotune] knob name '" + name + "' is not [A-Za-z0-9_]+");
  for (const Knob& knob : knobs_) {
    if (knob.name == name) throw std::invalid_argument("[autotune] knob '" + name + "' added twice");
  }
  if (values.empty()) throw std::invalid_argument("[autotune] knob '" + name + "' has no values");
  std::vector<std::int64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw std::invalid_argument("[autotune] knob '" + name + "' lists a value twice");
  }
  knobs_.push_back(Knob{std::move(name), std::move(values)});
  return *this;
}

std::uint64_t ConfigSpace::size() const {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t n = 1;
  for (const Knob& knob : knobs_) {
    const std::uint64_t count = knob.values.size();
    n = n > kMax / count ? kMax : n * count;
  }
  return n;
}

Config ConfigSpace::at(std::uint64_t index) const {
  if (index >= size()) {
    throw std::out_of_range("[autotune] config index " + std::to_string(index) + " out of range for a space of " +
                            std::to_string(size()));
  }
  Config config;
  for (const Knob& knob : knobs_) {
    config.emplace(knob.name, knob.values[index % knob.values.size()]);
    index /= knob.values.size();
  }
  return config;
}

Config ConfigSpace::sample(std::mt19937_64& rng) const {
  Config config;
  for (const Knob& knob : knobs_) {
    std::uniform_int_distribution<std::size_t> pick(0, knob.values.size() - 1);
    config.emplace(knob.name, knob.values[pick(rng)]);
  }
  return config;
}

bool ConfigSpace::contains(const Config& config) const {
  if (config.size() != knobs_.size()) return false;
  return std::all_of(knobs_.begin(), knobs_.end(), [&](const Knob& knob) {
    const auto it = config.find(knob.name);
    return it != config.end() && std::find(knob.values.begin(), knob.values.end(), it->second) != knob.values.end();
  });
}

}  // namespace kiln::autotune

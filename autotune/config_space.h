// The knobs a kernel family can be tuned over, and one point in that space.
//
// A Config is the tuner's only output: a name -> value map that the caller (the
// JIT) turns into a kernel. The tuner never learns what the knobs mean, so
// search, the tuning database and resolve() all work on this one type.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::autotune {

/// One point of a config space: knob name -> value.
using Config = std::map<std::string, std::int64_t>;

/// "kc=384,mc=96" (sorted by name, as the map is); "" for an empty config.
std::string to_string(const Config& config);

/// The inverse of to_string(); nullopt on malformed text (bad name, bad number,
/// a name given twice).
std::optional<Config> parse_config(std::string_view text);

/// A knob and the values it may take (non-empty, distinct, in the order given).
struct Knob {
  std::string name;
  std::vector<std::int64_t> values;
};

/// The cartesian product of a list of knobs.
class ConfigSpace {
 public:
  /// Adds a knob. Throws std::invalid_argument when `values` is empty or holds a value
  /// twice, when the name is already used, or when the name is not [A-Za-z0-9_]+.
  ConfigSpace& add(std::string name, std::vector<std::int64_t> values);

  const std::vector<Knob>& knobs() const { return knobs_; }

  /// The number of configs: the product of the knobs' value counts, saturating at
  /// UINT64_MAX; 1 for a space without knobs (its one config is empty).
  std::uint64_t size() const;

  /// The config with this mixed-radix index (the first knob varies fastest).
  /// Throws std::out_of_range unless index < size().
  Config at(std::uint64_t index) const;

  /// A config drawn uniformly (each knob's value independently).
  Config sample(std::mt19937_64& rng) const;

  /// True when the config names exactly this space's knobs, each with an allowed value.
  bool contains(const Config& config) const;

 private:
  std::vector<Knob> knobs_;
};

}  // namespace kiln::autotune

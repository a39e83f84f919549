// What tier 1 made of a segment key: its ops in order and its fused groups
// with their kernel keys, as text for people (`kiln explain KEY`). Written
// once per key when the JIT plans it (a cold path), read by the stats
// snapshot writer. Bounded: past kMaxPlans keys, later plans are not kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::profiler {

inline constexpr std::size_t kMaxPlans = 4096;

struct KeyPlan {
  std::string text;                   // ops and groups, one per line
  std::vector<std::uint64_t> kernels;  // kernel key of each fused group, in order
};

/// Keeps the plan of segment `key` (the first one recorded wins).
void record_plan(std::uint64_t key, KeyPlan plan);
/// The plan of segment `key`, if the JIT planned it.
std::optional<KeyPlan> plan_of(std::uint64_t key);
/// Forgets every plan (for tests).
void reset_plans();

}  // namespace kiln::profiler

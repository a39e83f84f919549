#include "profiler/key_plans.h"

#include <mutex>
#include <unordered_map>

namespace kiln::profiler {
namespace {

struct Plans {
  std::mutex mu;
  std::unordered_map<std::uint64_t, KeyPlan> by_key;
};

Plans& plans() {
  static Plans* instance = new Plans;  // read by the final snapshot at exit: never destroyed
  return *instance;
}

}  // namespace

void record_plan(std::uint64_t key, KeyPlan plan) {
  Plans& p = plans();
  std::lock_guard lock(p.mu);
  if (p.by_key.size() < kMaxPlans) p.by_key.try_emplace(key, std::move(plan));
}

std::optional<KeyPlan> plan_of(std::uint64_t key) {
  Plans& p = plans();
  std::lock_guard lock(p.mu);
  auto it = p.by_key.find(key);
  if (it == p.by_key.end()) return std::nullopt;
  return it->second;
}

void reset_plans() {
  Plans& p = plans();
  std::lock_guard lock(p.mu);
  p.by_key.clear();
}

}  // namespace kiln::profiler

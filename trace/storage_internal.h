// What trace/storage.cpp and trace/storage_overwrite.cpp share: the cost
// of a recipe with its evicted producers, and the burial of recipes
// dropped under the residency lock. Private to trace/storage*.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/storage.h"

namespace kiln::trace {

// DTR's e*: the cost of a value's recipe, plus that of its evicted
// producers, which recomputing it would recompute first, and how many those
// are. A walk of at most kMaxVisits recipes keeps a sample's scoring in
// microseconds.
struct ChainCost {
  double ns = 0;
  std::uint32_t evicted = 0;
};
ChainCost chain_cost(const Recipe& recipe);

// Under the lock: `dropped` is destroyed once the lock is released.
void bury(std::vector<RecipePtr>& dropped);

}  // namespace kiln::trace

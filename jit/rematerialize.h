// Recomputing an evicted value from its recipe (trace/recipe.h): the
// recipe's nodes run on tier 0 into the value's storage. Registered with
// trace::set_rematerializer when libkiln loads (frontend/runtime.cpp).
#pragma once

#include <memory>
#include <vector>

#include "trace/recipe.h"
#include "trace/storage.h"

namespace kiln::jit {

/// Writes `target` by running `recipe`'s nodes over `inputs` (its recipe's
/// inputs, in order). Pinning an evicted input recomputes it first.
void rematerialize(trace::Storage& target, const trace::Recipe& recipe,
                   std::vector<std::shared_ptr<trace::Storage>>& inputs);

}  // namespace kiln::jit

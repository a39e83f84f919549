// Recomputing an evicted value from its recipe (trace/recipe.h): the
// recipe's nodes run on tier 0 into the value's storage. Registered with
// trace::set_rematerializer when libkiln loads (frontend/runtime.cpp).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "trace/recipe.h"
#include "trace/storage.h"

namespace kiln::jit {

/// Writes `target` by running `nodes` over `inputs` (trace::Rematerializer).
/// Pinning an evicted input recomputes it first.
void rematerialize(trace::Storage& target, std::span<const trace::Node> nodes,
                   std::vector<std::shared_ptr<trace::Storage>>& inputs);

}  // namespace kiln::jit

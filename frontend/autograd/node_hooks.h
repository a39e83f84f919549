// What a node does besides computing gradients: the outputs whose gradient
// a retain_grad() tensor keeps.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "frontend/autograd/meta.h"

namespace kiln::autograd {

struct NodeHooks {
  std::vector<std::pair<std::uint32_t, std::weak_ptr<AutogradMeta>>> retained;
};

}  // namespace kiln::autograd

// The next batch of an epoch's index list, shared by the samplers that hold one.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

namespace kiln::data::samplers {

/// Up to `batch_size` indices from `index` on (advancing it); nothing once exhausted.
inline std::optional<std::vector<std::size_t>> take_batch(const std::vector<std::size_t>& indices, std::size_t& index,
                                                          std::size_t batch_size) {
  const std::size_t n = std::min(batch_size, indices.size() - index);
  if (n == 0) return std::nullopt;
  std::vector<std::size_t> batch(indices.begin() + static_cast<std::ptrdiff_t>(index),
                                 indices.begin() + static_cast<std::ptrdiff_t>(index + n));
  index += n;
  return batch;
}

}  // namespace kiln::data::samplers

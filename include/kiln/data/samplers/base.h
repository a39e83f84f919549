// samplers::Sampler: decides which examples go into each batch of an
// epoch (LibTorch's interface). The data loader calls reset() at the start
// of every epoch, then next(batch_size) until it returns nothing.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace kiln::data::samplers {

template <class BatchRequest = std::vector<std::size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;

  virtual ~Sampler() = default;

  /// Starts a new epoch, over `new_size` examples if given.
  virtual void reset(std::optional<std::size_t> new_size) = 0;
  /// The next request of up to `batch_size` examples; nothing once the
  /// epoch is exhausted (the last request may be short).
  virtual std::optional<BatchRequest> next(std::size_t batch_size) = 0;
};

}  // namespace kiln::data::samplers

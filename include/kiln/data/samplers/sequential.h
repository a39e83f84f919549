// samplers::SequentialSampler: indices 0, 1, ..., size-1 in order, every
// epoch the same (LibTorch's). For evaluation and reproducible runs.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <kiln/data/samplers/base.h>

namespace kiln::data::samplers {

class SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(std::size_t size);

  void reset(std::optional<std::size_t> new_size = std::nullopt) override;
  std::optional<std::vector<std::size_t>> next(std::size_t batch_size) override;
  /// How many indices this epoch has handed out.
  std::size_t index() const noexcept;

 private:
  std::size_t size_;
  std::size_t index_ = 0;
};

}  // namespace kiln::data::samplers

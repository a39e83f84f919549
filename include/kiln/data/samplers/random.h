// samplers::RandomSampler: each epoch, a fresh random permutation of the
// indices (LibTorch's). The permutation is drawn from kiln's generator, so
// kiln::manual_seed(s) before building the sampler or the loader makes
// every epoch's order reproducible; the orders differ from LibTorch's for
// the same seed, as kiln's random numbers do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <kiln/data/samplers/base.h>

namespace kiln::data::samplers {

class RandomSampler : public Sampler<> {
 public:
  /// Draws the first epoch's permutation of [0, size).
  explicit RandomSampler(std::int64_t size);

  /// Draws a new permutation (of [0, new_size) if given).
  void reset(std::optional<std::size_t> new_size = std::nullopt) override;
  std::optional<std::vector<std::size_t>> next(std::size_t batch_size) override;
  /// How many indices this epoch has handed out.
  std::size_t index() const noexcept;

 private:
  std::vector<std::size_t> indices_;
  std::size_t index_ = 0;
};

}  // namespace kiln::data::samplers

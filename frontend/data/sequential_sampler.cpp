#include <kiln/data/samplers/sequential.h>

#include <algorithm>
#include <numeric>

namespace kiln::data::samplers {

SequentialSampler::SequentialSampler(std::size_t size) : size_(size) {}

void SequentialSampler::reset(std::optional<std::size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<std::size_t>> SequentialSampler::next(std::size_t batch_size) {
  const std::size_t n = std::min(batch_size, size_ - index_);
  if (n == 0) return std::nullopt;
  std::vector<std::size_t> batch(n);
  std::iota(batch.begin(), batch.end(), index_);
  index_ += n;
  return batch;
}

std::size_t SequentialSampler::index() const noexcept { return index_; }

}  // namespace kiln::data::samplers

#include <kiln/data/samplers/random.h>

#include <algorithm>
#include <numeric>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>

#include "frontend/data/take_batch.h"

namespace kiln::data::samplers {

namespace {

// The order of `size` uniform draws from kiln's generator (a stable sort,
// so even a tie gives a permutation): manual_seed decides it.
std::vector<std::size_t> random_permutation(std::size_t size) {
  std::vector<std::size_t> order(size);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (size == 0) return order;
  const std::vector<double> keys = rand({static_cast<std::int64_t>(size)}, kFloat64).to_vector<double>();
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  return order;
}

}  // namespace

RandomSampler::RandomSampler(std::int64_t size) {
  if (size < 0) throw ValueError(kiln::detail::cat("[RandomSampler] size must be non-negative, got ", size));
  indices_ = random_permutation(static_cast<std::size_t>(size));
}

void RandomSampler::reset(std::optional<std::size_t> new_size) {
  indices_ = random_permutation(new_size.value_or(indices_.size()));
  index_ = 0;
}

std::optional<std::vector<std::size_t>> RandomSampler::next(std::size_t batch_size) {
  return take_batch(indices_, index_, batch_size);
}

std::size_t RandomSampler::index() const noexcept { return index_; }

}  // namespace kiln::data::samplers

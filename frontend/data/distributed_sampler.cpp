#include <kiln/data/samplers/distributed.h>

#include <algorithm>
#include <numeric>
#include <random>

#include <kiln/error.h>

#include "frontend/data/take_batch.h"

namespace kiln::data::samplers {

DistributedSampler::DistributedSampler(std::size_t size, std::size_t num_replicas, std::size_t rank,
                                       bool allow_duplicates)
    : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {
  if (num_replicas == 0 || rank >= num_replicas)
    throw ValueError(detail::cat("[DistributedSampler] rank ", rank, " is not in [0, num_replicas = ", num_replicas,
                                 ")"));
}

// Not in the constructor: order() is virtual, and a derived class is not built yet there.
void DistributedSampler::shard() {
  std::vector<std::size_t> all = order(size_);
  const std::size_t per_rank = allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
  indices_.clear();
  for (std::size_t k = 0; k < per_rank && !all.empty(); ++k)
    indices_.push_back(all[(k * num_replicas_ + rank_) % all.size()]);
  index_ = 0;
}

void DistributedSampler::reset(std::optional<std::size_t> new_size) {
  if (new_size) size_ = *new_size;
  shard();
}

std::optional<std::vector<std::size_t>> DistributedSampler::next(std::size_t batch_size) {
  return take_batch(indices_, index_, batch_size);
}

DistributedSequentialSampler::DistributedSequentialSampler(std::size_t size, std::size_t num_replicas,
                                                           std::size_t rank, bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  shard();
}

std::vector<std::size_t> DistributedSequentialSampler::order(std::size_t size) const {
  std::vector<std::size_t> all(size);
  std::iota(all.begin(), all.end(), std::size_t{0});
  return all;
}

DistributedRandomSampler::DistributedRandomSampler(std::size_t size, std::size_t num_replicas, std::size_t rank,
                                                   bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  shard();
}

// A Fisher-Yates shuffle driven by mt19937 seeded with the epoch: every rank
// draws the same order (std::shuffle's algorithm is the library's choice,
// this one is fixed).
std::vector<std::size_t> DistributedRandomSampler::order(std::size_t size) const {
  std::vector<std::size_t> all(size);
  std::iota(all.begin(), all.end(), std::size_t{0});
  std::mt19937_64 rng(epoch());
  for (std::size_t i = size; i > 1; --i) std::swap(all[i - 1], all[rng() % i]);
  return all;
}

}  // namespace kiln::data::samplers

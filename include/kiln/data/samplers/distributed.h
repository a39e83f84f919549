// samplers::DistributedSequentialSampler / DistributedRandomSampler: each
// rank's shard of the dataset for data-parallel training (LibTorch's).
// Rank r of n takes every n-th index starting at r of the epoch's order;
// with allow_duplicates (default) the order is padded by repeating its
// start so that every rank gets the same number of indices (ceil(size/n)),
// else each gets floor(size/n) and the rest are dropped. The random
// sampler's order is a permutation seeded by the epoch (set_epoch), the
// same on every rank, so the shards are disjoint and change every epoch.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <kiln/data/samplers/base.h>

namespace kiln::data::samplers {

class DistributedSampler : public Sampler<> {
 public:
  /// kiln::ValueError when num_replicas is 0 or rank is not below it.
  DistributedSampler(std::size_t size, std::size_t num_replicas, std::size_t rank, bool allow_duplicates);
  /// The epoch the next reset() draws its order for.
  void set_epoch(std::size_t epoch) { epoch_ = epoch; }
  std::size_t epoch() const { return epoch_; }

  void reset(std::optional<std::size_t> new_size = std::nullopt) override;
  std::optional<std::vector<std::size_t>> next(std::size_t batch_size) override;
  /// How many indices this epoch has handed out.
  std::size_t index() const noexcept { return index_; }

 protected:
  /// The epoch's order of [0, size) before sharding.
  virtual std::vector<std::size_t> order(std::size_t size) const = 0;
  void shard();

 private:
  std::size_t size_, num_replicas_, rank_;
  bool allow_duplicates_;
  std::size_t epoch_ = 0;
  std::vector<std::size_t> indices_;
  std::size_t index_ = 0;
};

class DistributedSequentialSampler : public DistributedSampler {
 public:
  explicit DistributedSequentialSampler(std::size_t size, std::size_t num_replicas = 1, std::size_t rank = 0,
                                        bool allow_duplicates = true);

 protected:
  std::vector<std::size_t> order(std::size_t size) const override;
};

class DistributedRandomSampler : public DistributedSampler {
 public:
  explicit DistributedRandomSampler(std::size_t size, std::size_t num_replicas = 1, std::size_t rank = 0,
                                    bool allow_duplicates = true);

 protected:
  std::vector<std::size_t> order(std::size_t size) const override;
};

}  // namespace kiln::data::samplers

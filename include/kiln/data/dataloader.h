// data::make_data_loader and the loader it returns (LibTorch's
// StatelessDataLoader): iterates a dataset in batches, one epoch per
// `for (auto& batch : *loader)` loop; every loop resets the sampler.
//
// With workers == 0 a batch is built on the iterating thread when ++ asks
// for it. With workers > 0 the loader keeps max_jobs batch requests ahead
// of the consumer: the sampler still runs on the iterating thread (so the
// batches and their order are exactly those of workers == 0), each worker
// gathers its batches from its own copy of the dataset and runs their
// pending ops, and batches are delivered in request order. An exception
// thrown while building a batch on a worker is rethrown by the ++ (or the
// begin()) that would have delivered that batch.
#pragma once

#include <cstddef>
#include <deque>
#include <future>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <kiln/data/dataloader_options.h>
#include <kiln/data/detail/settle.h>
#include <kiln/data/detail/worker_pool.h>
#include <kiln/data/iterator.h>
#include <kiln/data/samplers/random.h>
#include <kiln/error.h>

namespace kiln::data {

template <class Dataset, class Sampler>
class StatelessDataLoader {
 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = typename Sampler::BatchRequestType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : options_(std::move(options)), sampler_(std::move(sampler)) {
    if (options_.batch_size() == 0) throw ValueError("[make_data_loader] batch_size must be at least 1, got 0");
    const std::size_t workers = options_.workers();
    max_jobs_ = options_.max_jobs().value_or(2 * workers);
    if (workers > 0 && max_jobs_ == 0)
      throw ValueError(kiln::detail::cat("[make_data_loader] max_jobs must be at least 1 with ", workers, " workers"));
    for (std::size_t w = 1; w < workers; ++w) datasets_.push_back(dataset);
    datasets_.push_back(std::move(dataset));
    if (workers > 0) pool_ = std::make_unique<detail::WorkerPool>(workers);
  }

  StatelessDataLoader(const StatelessDataLoader&) = delete;
  StatelessDataLoader& operator=(const StatelessDataLoader&) = delete;

  /// Starts an epoch: resets the sampler and, with workers, queues the first
  /// max_jobs requests. A loop started before this one ends is abandoned.
  Iterator<BatchType> begin() {
    for (auto& pending : in_flight_) pending.wait();
    in_flight_.clear();
    sampler_.reset();
    if (pool_) prefetch();
    return Iterator<BatchType>([this] { return next(); });
  }
  Iterator<BatchType> end() { return Iterator<BatchType>(); }

  const DataLoaderOptions& options() const noexcept { return options_; }

 private:
  std::optional<BatchRequestType> next_request() {
    std::optional<BatchRequestType> request = sampler_.next(options_.batch_size());
    if (request && options_.drop_last() && request->size() < options_.batch_size()) return std::nullopt;
    return request;
  }

  std::optional<BatchType> next() {
    if (!pool_) {
      std::optional<BatchRequestType> request = next_request();
      if (!request) return std::nullopt;
      return datasets_.front().get_batch(std::move(*request));
    }
    if (in_flight_.empty()) return std::nullopt;
    std::future<BatchType> batch = std::move(in_flight_.front());
    in_flight_.pop_front();
    prefetch();
    return batch.get();
  }

  /// Queues requests for the workers until max_jobs are in flight or the
  /// sampler is exhausted.
  void prefetch() {
    while (in_flight_.size() < max_jobs_) {
      std::optional<BatchRequestType> request = next_request();
      if (!request) return;
      auto task = std::make_shared<std::packaged_task<BatchType(std::size_t)>>(
          [this, request = std::move(*request)](std::size_t worker) mutable {
            BatchType batch = datasets_[worker].get_batch(std::move(request));
            detail::settle(batch);
            return batch;
          });
      in_flight_.push_back(task->get_future());
      pool_->post([task](std::size_t worker) { (*task)(worker); });
    }
  }

  DataLoaderOptions options_;
  Sampler sampler_;
  std::size_t max_jobs_ = 0;
  /// One dataset per worker (the only one, used here, without workers).
  std::vector<Dataset> datasets_;
  std::deque<std::future<BatchType>> in_flight_;
  /// Last, so that it is destroyed first: workers are joined while the
  /// datasets their jobs use still exist.
  std::unique_ptr<detail::WorkerPool> pool_;
};

/// A loader over `dataset` with the given sampler.
template <class Dataset, class Sampler>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, Sampler sampler,
                                                                       DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler),
                                                                 std::move(options));
}

/// A loader over `dataset` with a Sampler built from the dataset's size
/// (random order by default). kiln::ValueError for a dataset without a size.
template <class Sampler = samplers::RandomSampler, class Dataset,
          class = std::enable_if_t<std::is_constructible_v<Sampler, std::size_t>>>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
    Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  const std::optional<std::size_t> size = dataset.size();
  if (!size) throw ValueError("[make_data_loader] the dataset has no size(), which the sampler needs");
  return make_data_loader(std::move(dataset), Sampler(*size), std::move(options));
}

}  // namespace kiln::data

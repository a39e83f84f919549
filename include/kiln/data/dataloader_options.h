// data::DataLoaderOptions: how a data loader batches and prefetches, with
// LibTorch's names and defaults. Implicit from a batch size, so that
// `make_data_loader(dataset, 64)` reads as in LibTorch.
#pragma once

#include <cstddef>
#include <optional>

#include <kiln/nn/options.h>

namespace kiln::data {

struct DataLoaderOptions {
  DataLoaderOptions() = default;
  DataLoaderOptions(std::size_t batch_size) : batch_size_(batch_size) {}

  /// Examples per batch (>= 1).
  KILN_ARG(std::size_t, batch_size) = 1;
  /// Background threads that build batches; 0 builds each batch on the
  /// iterating thread when it is asked for.
  KILN_ARG(std::size_t, workers) = 0;
  /// Batches requested ahead of the consumer (>= 1); 2 * workers if unset.
  KILN_ARG(std::optional<std::size_t>, max_jobs);
  /// Whether a last batch smaller than batch_size is dropped.
  KILN_ARG(bool, drop_last) = false;
};

}  // namespace kiln::data

// The dataset interfaces of LibTorch's torch::data::datasets.
//
// A BatchDataset answers a batch request (the indices a sampler chose) with
// a batch. Most datasets are random-access collections of single examples:
// derive from Dataset<Self, Example> (CRTP, so that map() knows the concrete
// type), define get(index) and size(), and get_batch gathers the examples.
// map(transform) wraps a dataset in a MapDataset that applies the transform
// to every batch it returns: per example (Normalize) or to the whole batch
// (Stack, which collates a vector of examples into one batched example).
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include <kiln/data/example.h>

namespace kiln::data::datasets {

template <class Source, class AppliedTransform>
class MapDataset;

/// `dataset` with `transform` applied to each of its batches.
template <class Source, class AppliedTransform>
MapDataset<Source, AppliedTransform> map(Source dataset, AppliedTransform transform);

/// Anything that returns a Batch for a BatchRequest (by default, indices).
template <class Self, class Batch, class BatchRequest = std::vector<std::size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;

  virtual ~BatchDataset() = default;

  /// The batch for `request` (the indices to gather, for index samplers).
  virtual Batch get_batch(BatchRequest request) = 0;
  /// The number of examples, if known; samplers need it.
  virtual std::optional<std::size_t> size() const = 0;

  /// A MapDataset over a copy of this dataset.
  template <class Transform>
  MapDataset<Self, Transform> map(Transform transform) & {
    return datasets::map(static_cast<Self&>(*this), std::move(transform));
  }
  /// A MapDataset that takes this dataset over (the usual chained form).
  template <class Transform>
  MapDataset<Self, Transform> map(Transform transform) && {
    return datasets::map(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

/// A random-access dataset of SingleExample: define get() and size().
template <class Self, class SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  /// The example at `index` (in [0, size())).
  virtual ExampleType get(std::size_t index) = 0;

  /// The examples at `indices`, in that order.
  std::vector<ExampleType> get_batch(std::vector<std::size_t> indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (std::size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

}  // namespace kiln::data::datasets

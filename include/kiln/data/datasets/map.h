// datasets::MapDataset: a dataset whose batches go through a transform
// (LibTorch's). Built by `dataset.map(transform)`; chains nest, so
// `MNIST(root).map(Normalize<>(...)).map(Stack<>())` normalizes each
// example, then stacks the batch.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>

#include <kiln/data/datasets/base.h>

namespace kiln::data::datasets {

template <class Source, class AppliedTransform>
class MapDataset : public BatchDataset<MapDataset<Source, AppliedTransform>,
                                       typename AppliedTransform::OutputBatchType,
                                       typename Source::BatchRequestType> {
 public:
  using DatasetType = Source;
  using TransformType = AppliedTransform;
  using BatchRequestType = typename Source::BatchRequestType;
  using OutputBatchType = typename AppliedTransform::OutputBatchType;

  MapDataset(Source dataset, AppliedTransform transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  /// The source's batch for `request`, transformed.
  OutputBatchType get_batch(BatchRequestType request) override {
    return transform_.apply_batch(dataset_.get_batch(std::move(request)));
  }
  /// The source's size: transforms keep the number of examples.
  std::optional<std::size_t> size() const override { return dataset_.size(); }

  const Source& dataset() const noexcept { return dataset_; }
  const AppliedTransform& transform() const noexcept { return transform_; }

 private:
  Source dataset_;
  AppliedTransform transform_;
};

template <class Source, class AppliedTransform>
MapDataset<Source, AppliedTransform> map(Source dataset, AppliedTransform transform) {
  return MapDataset<Source, AppliedTransform>(std::move(dataset), std::move(transform));
}

}  // namespace kiln::data::datasets

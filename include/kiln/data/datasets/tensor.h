// datasets::TensorDataset: the slices of one tensor along dim 0, as
// examples without a target (LibTorch's). For data already in memory.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <kiln/data/datasets/base.h>
#include <kiln/data/example.h>
#include <kiln/frontend/tensor.h>

namespace kiln::data::datasets {

struct TensorDataset : public Dataset<TensorDataset, TensorExample> {
  /// The tensors stacked along a new dim 0: example i is tensors[i].
  explicit TensorDataset(const std::vector<Tensor>& tensors);
  /// Example i is tensor.select(0, i); the tensor must have a dim 0.
  explicit TensorDataset(Tensor tensor);

  TensorExample get(std::size_t index) override;
  std::optional<std::size_t> size() const override;

  Tensor tensor;
};

}  // namespace kiln::data::datasets

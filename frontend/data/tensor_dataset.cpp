#include <kiln/data/datasets/tensor.h>

#include <cstdint>
#include <utility>

#include <kiln/error.h>
#include <kiln/frontend/functions.h>

namespace kiln::data::datasets {

TensorDataset::TensorDataset(const std::vector<Tensor>& tensors) : TensorDataset(kiln::stack(tensors)) {}

TensorDataset::TensorDataset(Tensor tensor_) : tensor(std::move(tensor_)) {
  if (tensor.dim() == 0)
    throw ShapeError("[TensorDataset] a zero-dim tensor has no dim 0 to take examples along");
}

TensorExample TensorDataset::get(std::size_t index) { return tensor.select(0, static_cast<std::int64_t>(index)); }

std::optional<std::size_t> TensorDataset::size() const { return static_cast<std::size_t>(tensor.size(0)); }

}  // namespace kiln::data::datasets

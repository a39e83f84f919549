// data::Example: one training example, a pair of data and target, as
// LibTorch's torch::data::Example. A batch of examples collated by
// transforms::Stack is again an Example, whose tensors have a batch dim.
#pragma once

#include <utility>

#include <kiln/frontend/tensor.h>

namespace kiln::data {

namespace example {
/// The target type of an example that has none (LibTorch's NoTarget).
using NoTarget = void;
}  // namespace example

template <class Data = Tensor, class Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

/// An example that is data only (datasets::TensorDataset gives these).
/// Implicit from and to its data, so that `return t.select(0, i);` makes one
/// and a batch of them reads as the tensor itself.
template <class Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;

  Example() = default;
  Example(Data data) : data(std::move(data)) {}
  operator Data&() { return data; }
  operator const Data&() const { return data; }

  Data data;
};

using TensorExample = Example<Tensor, example::NoTarget>;

}  // namespace kiln::data

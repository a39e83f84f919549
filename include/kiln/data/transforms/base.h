// The transform interfaces of LibTorch's torch::data::transforms, which
// MapDataset applies to a dataset's batches.
//
// A BatchTransform maps a whole batch (a collation such as Stack turns a
// vector of examples into one example); a Transform maps each example of a
// batch on its own and only has to define apply().
#pragma once

#include <utility>
#include <vector>

namespace kiln::data::transforms {

template <class InputBatch, class OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;

  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

template <class Input, class Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;

  /// The transformed example.
  virtual Output apply(Input input) = 0;

  /// apply() on each example, in order.
  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> output;
    output.reserve(input_batch.size());
    for (auto& input : input_batch) output.push_back(apply(std::move(input)));
    return output;
  }
};

}  // namespace kiln::data::transforms

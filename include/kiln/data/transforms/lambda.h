// Transforms from a function, as LibTorch's BatchLambda and Lambda: for a
// one-off step in a pipeline without writing a class.
#pragma once

#include <functional>
#include <utility>

#include <kiln/data/transforms/base.h>

namespace kiln::data::transforms {

/// Applies `function` to the whole batch.
template <class Input, class Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;

  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}
  Output apply_batch(Input input_batch) override { return function_(std::move(input_batch)); }

 private:
  FunctionType function_;
};

/// Applies `function` to each example of a batch.
template <class Input, class Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;

  explicit Lambda(FunctionType function) : function_(std::move(function)) {}
  Output apply(Input input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

}  // namespace kiln::data::transforms

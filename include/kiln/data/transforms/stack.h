// transforms::Stack: collates a vector of examples into one example whose
// data (and target) are the examples' tensors stacked along a new dim 0,
// as LibTorch's. Put it last in a map() chain: the loader then yields
// batches with `batch.data.size(0)` examples.
#pragma once

#include <utility>
#include <vector>

#include <kiln/data/example.h>
#include <kiln/data/transforms/collate.h>
#include <kiln/frontend/functions.h>

namespace kiln::data::transforms {

template <class T = Example<>>
struct Stack;

/// Stacks data and targets; every example's tensors must have one shape
/// (kiln::ShapeError from stack otherwise).
template <>
struct Stack<Example<>> : public Collation<Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& example : examples) {
      data.push_back(std::move(example.data));
      targets.push_back(std::move(example.target));
    }
    return {kiln::stack(data), kiln::stack(targets)};
  }
};

/// Stacks the data of examples without targets.
template <>
struct Stack<TensorExample> : public Collation<TensorExample> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    std::vector<Tensor> data;
    data.reserve(examples.size());
    for (auto& example : examples) data.push_back(std::move(example.data));
    return kiln::stack(data);
  }
};

}  // namespace kiln::data::transforms

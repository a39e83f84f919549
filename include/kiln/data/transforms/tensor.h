// Transforms of an example's data tensor (the target passes through), as
// LibTorch's TensorTransform, TensorLambda and Normalize.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include <kiln/data/example.h>
#include <kiln/data/transforms/base.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/tensor.h>

namespace kiln::data::transforms {

/// Define operator()(Tensor) to map an example's data.
template <class Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;

  virtual Tensor operator()(Tensor input) = 0;

  E apply(E input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

/// A TensorTransform from a function.
template <class Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;

  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// (data - mean) / stddev per channel: `mean` and `stddev` hold one value
/// per channel (dim 0 of an example's data, e.g. [C, H, W] images) or one
/// value for all. Stored as float32 [C, 1, 1], as LibTorch does, so that
/// they broadcast over an image's rows and columns.
template <class Target = Tensor>
struct Normalize : public TensorTransform<Target> {
  Normalize(double mean, double stddev) : Normalize(std::vector<double>{mean}, std::vector<double>{stddev}) {}
  Normalize(const std::vector<double>& mean, const std::vector<double>& stddev)
      : mean(kiln::tensor(mean, kFloat32).unsqueeze(1).unsqueeze(2)),
        stddev(kiln::tensor(stddev, kFloat32).unsqueeze(1).unsqueeze(2)) {}

  Tensor operator()(Tensor input) override { return input.sub(mean).div(stddev); }

  Tensor mean, stddev;
};

}  // namespace kiln::data::transforms

// Creating tensors, with LibTorch's names and defaults (float32 unless an
// option says otherwise).
//
// Random numbers come from kiln's own generator: counter-based Philox4x32-10
// seeded by manual_seed(), so a seed gives the same numbers on every machine
// and however many threads run the kernel. The numbers differ from
// LibTorch's for the same seed (LibTorch's CPU generator is mt19937).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <vector>

#include <kiln/frontend/tensor.h>

namespace kiln {

Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
/// Filled with `value`; without a dtype option it follows the value
/// (bool -> Bool, integer -> Long, floating -> Float), as in LibTorch.
Tensor full(IntArrayRef size, Scalar value, std::optional<TensorOptions> options = std::nullopt);
/// Uninitialized contents (whatever the memory pool hands out).
Tensor empty(IntArrayRef size, TensorOptions options = {});
Tensor eye(std::int64_t n, TensorOptions options = {});
Tensor eye(std::int64_t n, std::int64_t m, TensorOptions options = {});
/// [0, end) with step 1; Long for integer arguments, Float otherwise.
Tensor arange(Scalar end, std::optional<TensorOptions> options = std::nullopt);
Tensor arange(Scalar start, Scalar end, Scalar step = 1, std::optional<TensorOptions> options = std::nullopt);
Tensor linspace(Scalar start, Scalar end, std::int64_t steps, TensorOptions options = {});
/// Uniform in [0, 1).
Tensor rand(IntArrayRef size, TensorOptions options = {});
/// Standard normal.
Tensor randn(IntArrayRef size, TensorOptions options = {});
/// Integers uniform in [low, high); Long unless an option says otherwise.
Tensor randint(std::int64_t high, IntArrayRef size, TensorOptions options = kInt64);
Tensor randint(std::int64_t low, std::int64_t high, IntArrayRef size, TensorOptions options = kInt64);
Tensor zeros_like(const Tensor& x);
Tensor ones_like(const Tensor& x);
Tensor empty_like(const Tensor& x);
Tensor full_like(const Tensor& x, Scalar value);
Tensor rand_like(const Tensor& x);
Tensor randn_like(const Tensor& x);
/// Seeds kiln's generator and restarts its stream.
void manual_seed(std::uint64_t seed);

/// Wraps memory the caller owns (no copy). The memory must outlive every
/// tensor and view made from it; `deleter`, if given, runs when the last one
/// is gone. Contiguous unless `strides` are given. A null `data` throws
/// kiln::ValueError.
Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options = {});
Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter, TensorOptions options = {});

/// A tensor copied from values, as torch::tensor: integers give Long,
/// floating-point numbers Float, bools Bool, unless `options` says otherwise.
Tensor tensor(std::initializer_list<double> values, std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(std::initializer_list<float> values, std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(std::initializer_list<int> values, std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(std::initializer_list<std::int64_t> values, std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(std::initializer_list<bool> values, std::optional<TensorOptions> options = std::nullopt);
/// A 0-dim tensor of one number, as torch::tensor(3.5); the same dtypes.
Tensor tensor(double value, std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(float value, std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(int value, std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(std::int64_t value, std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(bool value, std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(std::initializer_list<std::initializer_list<double>> rows,
              std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(std::initializer_list<std::initializer_list<float>> rows,
              std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(std::initializer_list<std::initializer_list<int>> rows,
              std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(const std::vector<double>& values, std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(const std::vector<float>& values, std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(const std::vector<std::int64_t>& values, std::optional<TensorOptions> options = std::nullopt);
Tensor tensor(const std::vector<int>& values, std::optional<TensorOptions> options = std::nullopt);
/// A zero-dim tensor holding one number.
Tensor scalar_tensor(Scalar value, std::optional<TensorOptions> options = std::nullopt);

}  // namespace kiln

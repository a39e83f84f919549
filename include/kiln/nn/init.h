// kiln::nn::init: in-place initializers of parameters, as LibTorch's
// torch::nn::init (same formulas, same defaults). They run without
// recording gradient history, draw from kiln's generator (manual_seed),
// and return the tensor.
#pragma once

#include <cstdint>
#include <utility>

#include <kiln/frontend/tensor.h>
#include <kiln/nn/options.h>

namespace kiln::nn::init {

/// The recommended gain for `nonlinearity` (`param`: LeakyReLU's negative slope).
double calculate_gain(Nonlinearity nonlinearity, double param = 0.01);
/// (fan_in, fan_out) of a weight of at least 2 dims: [out, in, kernel...].
std::pair<std::int64_t, std::int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
Tensor constant_(Tensor tensor, Scalar value);
Tensor ones_(Tensor tensor);
Tensor zeros_(Tensor tensor);
Tensor xavier_uniform_(Tensor tensor, double gain = 1);
Tensor xavier_normal_(Tensor tensor, double gain = 1);
Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanMode mode = kFanIn, Nonlinearity nonlinearity = kLeakyReLU);
Tensor kaiming_normal_(Tensor tensor, double a = 0, FanMode mode = kFanIn, Nonlinearity nonlinearity = kLeakyReLU);

}  // namespace kiln::nn::init

// nn::init: LibTorch's initializers (torch/csrc/api/src/nn/init.cpp), with
// kiln's generator.
#include <kiln/nn/init.h>

#include <cmath>

#include <kiln/autograd.h>
#include <kiln/error.h>
#include <kiln/frontend/creation.h>

namespace kiln::nn::init {

namespace {

// LibTorch leaves zero-element tensors alone (no fan to scale by).
bool empty_tensor(const Tensor& tensor) { return tensor.numel() == 0; }

double fan(const Tensor& tensor, FanMode mode) {
  auto [in, out] = calculate_fan_in_and_fan_out(tensor);
  return static_cast<double>(mode == kFanIn ? in : out);
}

}  // namespace

double calculate_gain(Nonlinearity nonlinearity, double param) {
  switch (nonlinearity) {
    case kTanh: return 5.0 / 3.0;
    case kReLU: return std::sqrt(2.0);
    case kLeakyReLU: return std::sqrt(2.0 / (1 + param * param));
    default: return 1.0;  // linear, convolutions, sigmoid
  }
}

std::pair<std::int64_t, std::int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
  if (tensor.dim() < 2)
    throw ValueError(kiln::detail::cat("[nn::init] fan in and fan out need a tensor of at least 2 dims, got shape ",
                                       tensor.sizes()));
  std::int64_t receptive = 1;
  for (std::int64_t d = 2; d < tensor.dim(); ++d) receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

Tensor uniform_(Tensor tensor, double low, double high) {
  NoGradGuard no_grad;
  tensor.uniform_(low, high);
  return tensor;
}

Tensor normal_(Tensor tensor, double mean, double std) {
  NoGradGuard no_grad;
  tensor.normal_(mean, std);
  return tensor;
}

Tensor constant_(Tensor tensor, Scalar value) {
  NoGradGuard no_grad;
  tensor.fill_(value);
  return tensor;
}
Tensor ones_(Tensor tensor) { return constant_(tensor, 1); }
Tensor zeros_(Tensor tensor) { return constant_(tensor, 0); }

Tensor xavier_uniform_(Tensor tensor, double gain) {
  if (empty_tensor(tensor)) return tensor;
  auto [in, out] = calculate_fan_in_and_fan_out(tensor);
  const double bound = std::sqrt(3.0) * gain * std::sqrt(2.0 / static_cast<double>(in + out));
  return uniform_(tensor, -bound, bound);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  if (empty_tensor(tensor)) return tensor;
  auto [in, out] = calculate_fan_in_and_fan_out(tensor);
  return normal_(tensor, 0, gain * std::sqrt(2.0 / static_cast<double>(in + out)));
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  if (empty_tensor(tensor)) return tensor;
  const double bound = std::sqrt(3.0) * calculate_gain(nonlinearity, a) / std::sqrt(fan(tensor, mode));
  return uniform_(tensor, -bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  if (empty_tensor(tensor)) return tensor;
  return normal_(tensor, 0, calculate_gain(nonlinearity, a) / std::sqrt(fan(tensor, mode)));
}

}  // namespace kiln::nn::init

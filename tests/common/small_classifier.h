// A small classifier the training tests share: Linear (no bias: batch norm
// follows and would subtract it again, leaving it a gradient of rounding
// noise that Adam scales up to full steps), BatchNorm1d, ReLU, Linear; and
// everything a training run changes, flattened, for comparing two runs.
#pragma once

#include <cstdint>
#include <vector>

#include <kiln/torch.h>

namespace ktest {

struct SmallClassifierImpl : torch::nn::Module {
  SmallClassifierImpl(std::int64_t inputs, std::int64_t hidden, std::int64_t classes)
      : fc1(register_module("fc1", torch::nn::Linear(torch::nn::LinearOptions(inputs, hidden).bias(false)))),
        bn(register_module("bn", torch::nn::BatchNorm1d(hidden))),
        fc2(register_module("fc2", torch::nn::Linear(hidden, classes))) {}
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(bn(fc1(x)))); }
  torch::nn::Linear fc1;
  torch::nn::BatchNorm1d bn;
  torch::nn::Linear fc2;
};
TORCH_MODULE(SmallClassifier);

/// Every parameter, then every buffer, as floats.
inline std::vector<float> trained_state(const torch::nn::Module& m) {
  std::vector<float> out;
  for (const std::vector<torch::Tensor>& group : {m.parameters(), m.buffers()})
    for (const torch::Tensor& t : group) {
      std::vector<float> v = t.detach().to(torch::kFloat32).contiguous().to_vector<float>();
      out.insert(out.end(), v.begin(), v.end());
    }
  return out;
}

}  // namespace ktest

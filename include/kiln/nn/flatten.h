// kiln::nn::Flatten and kiln::nn::Identity, as LibTorch's torch::nn::Flatten
// and torch::nn::Identity (LibTorch declares both beside Linear).
#pragma once

#include <cstdint>
#include <iosfwd>

#include <kiln/nn/module.h>
#include <kiln/nn/options.h>

namespace kiln::nn {

/// Flatten's options: the dims [start_dim, end_dim] are merged into one
/// (defaults keep the batch dim: [N, C, H, W] -> [N, C*H*W]).
struct FlattenOptions {
  KILN_ARG(std::int64_t, start_dim) = 1;
  KILN_ARG(std::int64_t, end_dim) = -1;
};

/// input.flatten(start_dim, end_dim). Prints "kiln::nn::Flatten(start_dim=1, end_dim=-1)".
class FlattenImpl : public Module {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {});
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  FlattenOptions options;
};
KILN_MODULE(Flatten);

/// Returns its input (the same tensor): a placeholder layer. Prints "kiln::nn::Identity()".
class IdentityImpl : public Module {
 public:
  IdentityImpl();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
KILN_MODULE(Identity);

}  // namespace kiln::nn

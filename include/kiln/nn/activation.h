// Activation modules, as LibTorch's torch::nn::ReLU, LeakyReLU, GELU, Tanh,
// Sigmoid, SiLU, Softmax and LogSoftmax: parameterless modules whose forward applies
// the op of the same name (kiln/frontend/functions.h), so autograd and the
// JIT see the ordinary recorded op.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include <kiln/nn/module.h>
#include <kiln/nn/options.h>

namespace kiln::nn {

/// ReLU's options: `inplace` rectifies the input itself (relu_).
struct ReLUOptions {
  /* implicit */ ReLUOptions(bool inplace = false) : inplace_(inplace) {}
  KILN_ARG(bool, inplace);
};

/// max(x, 0) elementwise. Prints "kiln::nn::ReLU()" ("kiln::nn::ReLU(inplace=true)").
class ReLUImpl : public Module {
 public:
  explicit ReLUImpl(const ReLUOptions& options = {});
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;

  ReLUOptions options;
};
KILN_MODULE(ReLU);

/// LeakyReLU's options: the slope below zero; `inplace` rewrites the input.
struct LeakyReLUOptions {
  KILN_ARG(double, negative_slope) = 1e-2;
  KILN_ARG(bool, inplace) = false;
};

/// x where x > 0, else negative_slope * x. Prints
/// "kiln::nn::LeakyReLU(negative_slope=0.2)" (", inplace=true" when set).
class LeakyReLUImpl : public Module {
 public:
  explicit LeakyReLUImpl(const LeakyReLUOptions& options = {});
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;

  LeakyReLUOptions options;
};
KILN_MODULE(LeakyReLU);

namespace functional {
using LeakyReLUFuncOptions = LeakyReLUOptions;
/// The module's forward as a function; `inplace` rewrites `input`.
Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options = {});
}  // namespace functional

/// GELU's options: `approximate` is "none" (the erf form) or "tanh".
struct GELUOptions {
  KILN_ARG(std::string, approximate) = "none";
};

/// x * Phi(x) elementwise. Prints "kiln::nn::GELU()".
class GELUImpl : public Module {
 public:
  explicit GELUImpl(GELUOptions options = {});
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  GELUOptions options;
};
KILN_MODULE(GELU);

/// tanh elementwise. Prints "kiln::nn::Tanh()".
class TanhImpl : public Module {
 public:
  TanhImpl();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
KILN_MODULE(Tanh);

/// 1 / (1 + exp(-x)) elementwise. Prints "kiln::nn::Sigmoid()".
class SigmoidImpl : public Module {
 public:
  SigmoidImpl();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
KILN_MODULE(Sigmoid);

/// x * sigmoid(x) elementwise (swish). Prints "kiln::nn::SiLU()".
class SiLUImpl : public Module {
 public:
  SiLUImpl();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
KILN_MODULE(SiLU);

/// Softmax's and LogSoftmax's options: the dim normalized over (no default, as in LibTorch).
struct SoftmaxOptions {
  SoftmaxOptions(std::int64_t dim) : dim_(dim) {}
  KILN_ARG(std::int64_t, dim);
};
using LogSoftmaxOptions = SoftmaxOptions;

/// exp(x) / sum(exp(x)) along options.dim. Prints "kiln::nn::Softmax(dim=1)".
class SoftmaxImpl : public Module {
 public:
  explicit SoftmaxImpl(std::int64_t dim) : SoftmaxImpl(SoftmaxOptions(dim)) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  SoftmaxOptions options;
};
KILN_MODULE(Softmax);

/// log(softmax(x)) along options.dim, computed stably. Prints "kiln::nn::LogSoftmax(dim=1)".
class LogSoftmaxImpl : public Module {
 public:
  explicit LogSoftmaxImpl(std::int64_t dim) : LogSoftmaxImpl(LogSoftmaxOptions(dim)) {}
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  LogSoftmaxOptions options;
};
KILN_MODULE(LogSoftmax);

}  // namespace kiln::nn

// The activation modules: each forward is the op of the same name.
#include <kiln/nn/activation.h>

#include <ostream>
#include <utility>

#include <kiln/frontend/functions.h>

namespace kiln::nn {

ReLUImpl::ReLUImpl(const ReLUOptions& options_) : Module("kiln::nn::ReLU"), options(options_) {}
Tensor ReLUImpl::forward(Tensor input) { return options.inplace() ? input.relu_() : relu(input); }
void ReLUImpl::pretty_print(std::ostream& stream) const {
  stream << name() << "(" << (options.inplace() ? "inplace=true" : "") << ")";
}

LeakyReLUImpl::LeakyReLUImpl(const LeakyReLUOptions& options_) : Module("kiln::nn::LeakyReLU"), options(options_) {}
Tensor LeakyReLUImpl::forward(Tensor input) { return functional::leaky_relu(std::move(input), options); }
void LeakyReLUImpl::pretty_print(std::ostream& stream) const {
  stream << name() << "(negative_slope=" << options.negative_slope() << (options.inplace() ? ", inplace=true" : "")
         << ")";
}

Tensor functional::leaky_relu(Tensor input, const LeakyReLUFuncOptions& options) {
  if (options.inplace()) return kiln::leaky_relu_(input, options.negative_slope());
  return kiln::leaky_relu(input, options.negative_slope());
}

GELUImpl::GELUImpl(GELUOptions options_) : Module("kiln::nn::GELU"), options(std::move(options_)) {}
Tensor GELUImpl::forward(const Tensor& input) { return gelu(input, options.approximate()); }
void GELUImpl::pretty_print(std::ostream& stream) const { stream << name() << "()"; }

TanhImpl::TanhImpl() : Module("kiln::nn::Tanh") {}
Tensor TanhImpl::forward(const Tensor& input) { return tanh(input); }
void TanhImpl::pretty_print(std::ostream& stream) const { stream << name() << "()"; }

SigmoidImpl::SigmoidImpl() : Module("kiln::nn::Sigmoid") {}
Tensor SigmoidImpl::forward(const Tensor& input) { return sigmoid(input); }
void SigmoidImpl::pretty_print(std::ostream& stream) const { stream << name() << "()"; }

SiLUImpl::SiLUImpl() : Module("kiln::nn::SiLU") {}
Tensor SiLUImpl::forward(const Tensor& input) { return silu(input); }
void SiLUImpl::pretty_print(std::ostream& stream) const { stream << name() << "()"; }

SoftmaxImpl::SoftmaxImpl(const SoftmaxOptions& options_) : Module("kiln::nn::Softmax"), options(options_) {}
Tensor SoftmaxImpl::forward(const Tensor& input) { return softmax(input, options.dim()); }
void SoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << name() << "(dim=" << options.dim() << ")";
}

LogSoftmaxImpl::LogSoftmaxImpl(const LogSoftmaxOptions& options_)
    : Module("kiln::nn::LogSoftmax"), options(options_) {}
Tensor LogSoftmaxImpl::forward(const Tensor& input) { return log_softmax(input, options.dim()); }
void LogSoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << name() << "(dim=" << options.dim() << ")";
}

}  // namespace kiln::nn

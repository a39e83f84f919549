#include <kiln/nn/linear.h>

#include <cmath>
#include <ostream>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>
#include <kiln/nn/init.h>

namespace kiln::nn {

LinearImpl::LinearImpl(const LinearOptions& options_) : Module("kiln::nn::Linear"), options(options_) {
  if (options.in_features() < 0 || options.out_features() < 0)
    throw ValueError(kiln::detail::cat("[nn::Linear] in_features and out_features must be non-negative, got ",
                                       options.in_features(), " and ", options.out_features()));
  weight = register_parameter("weight", empty({options.out_features(), options.in_features()}));
  bias = options.bias() ? register_parameter("bias", empty({options.out_features()}))
                        : register_parameter("bias", Tensor(), false);
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const double fan_in = static_cast<double>(options.in_features());
    const double bound = fan_in > 0 ? 1 / std::sqrt(fan_in) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor LinearImpl::forward(const Tensor& input) {
  if (input.dim() < 1 || input.size(-1) != options.in_features())
    throw ShapeError(kiln::detail::cat("[nn::Linear] input of shape ", input.sizes(), " does not end in in_features=",
                                       options.in_features(), " (weight ", weight.sizes(), ")"));
  return functional::linear(input, weight, bias);
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << "kiln::nn::Linear(in_features=" << options.in_features() << ", out_features=" << options.out_features()
         << ", bias=" << (options.bias() ? "true" : "false") << ")";
}

}  // namespace kiln::nn

// Functional: a function of a Tensor as a module.
#include <kiln/nn/containers/functional.h>

#include <ostream>

#include <kiln/error.h>

namespace kiln::nn {

FunctionalImpl::FunctionalImpl(Function function) : Module("kiln::nn::Functional"), function_(std::move(function)) {
  if (!function_) throw ValueError("[nn::Functional] the function is empty");
}

Tensor FunctionalImpl::forward(Tensor input) { return function_(std::move(input)); }

void FunctionalImpl::pretty_print(std::ostream& stream) const { stream << name() << "()"; }

}  // namespace kiln::nn

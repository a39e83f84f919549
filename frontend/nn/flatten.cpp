// Flatten and Identity: shape-only layers.
#include <kiln/nn/flatten.h>

#include <ostream>

namespace kiln::nn {

FlattenImpl::FlattenImpl(const FlattenOptions& options_) : Module("kiln::nn::Flatten"), options(options_) {}
Tensor FlattenImpl::forward(const Tensor& input) { return input.flatten(options.start_dim(), options.end_dim()); }
void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << name() << "(start_dim=" << options.start_dim() << ", end_dim=" << options.end_dim() << ")";
}

IdentityImpl::IdentityImpl() : Module("kiln::nn::Identity") {}
Tensor IdentityImpl::forward(const Tensor& input) { return input; }
void IdentityImpl::pretty_print(std::ostream& stream) const { stream << name() << "()"; }

}  // namespace kiln::nn

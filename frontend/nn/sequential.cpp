// Sequential: registration by position or name, chained forward, indexing.
#include <kiln/nn/containers/sequential.h>

#include <kiln/error.h>

namespace kiln::nn {

SequentialImpl::SequentialImpl() : Module("kiln::nn::Sequential") {}

SequentialImpl::SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) : SequentialImpl() {
  for (const NamedAnyModule& named : named_modules) push_back(named.name(), named.module());
}

void SequentialImpl::push_back(std::string name, AnyModule module) {
  register_module(std::move(name), module.ptr());
  modules_.push_back(std::move(module));
}

void SequentialImpl::extend(const SequentialImpl& other) {
  // A copy first: `seq->extend(*seq)` must not read what it appends.
  const std::vector<AnyModule> others = other.modules_;
  for (const AnyModule& module : others) push_back(module);
}

Tensor SequentialImpl::chain(const Tensor& input) {
  if (modules_.empty()) throw ValueError("[nn::Sequential] cannot call forward() on an empty Sequential");
  Tensor x = input;
  for (const AnyModule& module : modules_) x = module.forward(x);
  return x;
}

const AnyModule& SequentialImpl::at_index(std::size_t index) const {
  if (index >= modules_.size())
    throw IndexError(kiln::detail::cat("[nn::Sequential] index ", index, " is out of range for a Sequential of size ",
                                       modules_.size()));
  return modules_[index];
}

}  // namespace kiln::nn

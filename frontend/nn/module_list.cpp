// ModuleList: positional registration, insertion with renaming, indexing.
#include <kiln/nn/containers/module_list.h>

#include <string>

#include <kiln/error.h>

namespace kiln::nn {

ModuleListImpl::ModuleListImpl() : Module("kiln::nn::ModuleList") {}

void ModuleListImpl::push_back(std::shared_ptr<Module> module) {
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

void ModuleListImpl::insert(std::size_t index, std::shared_ptr<Module> module) {
  if (index > modules_.size())
    throw IndexError(kiln::detail::cat("[nn::ModuleList] insert position ", index,
                                       " is out of range for a ModuleList of size ", modules_.size()));
  if (!module) throw ValueError(kiln::detail::cat("[nn::ModuleList] cannot insert an empty module at ", index));
  modules_.insert(modules_.begin() + static_cast<std::ptrdiff_t>(index), std::move(module));
  // Names are positions: every module from `index` on has a new one.
  children_.clear();
  for (std::size_t i = 0; i < modules_.size(); ++i) register_module(std::to_string(i), modules_[i]);
}

const std::shared_ptr<Module>& ModuleListImpl::ptr(std::size_t index) const {
  if (index >= modules_.size())
    throw IndexError(kiln::detail::cat("[nn::ModuleList] index ", index, " is out of range for a ModuleList of size ",
                                       modules_.size()));
  return modules_[index];
}

}  // namespace kiln::nn

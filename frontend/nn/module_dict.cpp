// ModuleDict: named registration in order, lookup, update, pop.
#include <kiln/nn/containers/module_dict.h>

#include <kiln/error.h>

namespace kiln::nn {

ModuleDictImpl::ModuleDictImpl() : Module("kiln::nn::ModuleDict") {}

ModuleDictImpl::ModuleDictImpl(const Pairs& modules) : ModuleDictImpl() { update(modules); }

ModuleDictImpl::ModuleDictImpl(const Dict& modules) : ModuleDictImpl() { update(modules); }

ModuleDictImpl::Pairs ModuleDictImpl::items() const {
  Pairs out;
  for (const auto& item : modules_) out.push_back(item.pair());
  return out;
}

const std::shared_ptr<Module>& ModuleDictImpl::checked(const std::string& key) const {
  const std::shared_ptr<Module>* module = modules_.find(key);
  if (!module)
    throw IndexError(kiln::detail::cat("[nn::ModuleDict] no module under key '", key, "' (", modules_.size(),
                                       " keys)"));
  return *module;
}

void ModuleDictImpl::set(const std::string& key, std::shared_ptr<Module> module) {
  if (!module) throw ValueError(kiln::detail::cat("[nn::ModuleDict] module '", key, "' is empty (nullptr)"));
  if (modules_.contains(key)) {
    modules_.update(key, std::move(module));
    sync_children();
  } else {
    register_module(key, module);
    modules_.insert(key, std::move(module));
  }
}

void ModuleDictImpl::sync_children() {
  children_.clear();
  for (const auto& item : modules_) register_module(item.key(), item.value());
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  std::shared_ptr<Module> module = checked(key);
  Dict rest("Module");
  for (const auto& item : modules_)
    if (item.key() != key) rest.insert(item.key(), item.value());
  modules_ = std::move(rest);
  sync_children();
  return module;
}

void ModuleDictImpl::clear() {
  modules_.clear();
  children_.clear();
}

void ModuleDictImpl::update(const Pairs& modules) {
  for (const auto& [key, module] : modules) set(key, module);
}

void ModuleDictImpl::update(const Dict& modules) {
  for (const auto& item : modules) set(item.key(), item.value());
}

}  // namespace kiln::nn

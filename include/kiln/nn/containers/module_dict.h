// kiln::nn::ModuleDict: LibTorch's torch::nn::ModuleDict, submodules by
// name in insertion order, registered under their names (so parameters are
// named "<name>.weight"). It has no forward: the owner calls the modules.
//
//   ModuleDict heads({{"cls", Linear(8, 10).ptr()}, {"box", Linear(8, 4).ptr()}});
//   Tensor logits = heads->at<LinearImpl>("cls").forward(x);
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <kiln/nn/containers/any.h>
#include <kiln/nn/module.h>
#include <kiln/ordered_dict.h>

namespace kiln::nn {

/// Prints as LibTorch lays it out: "kiln::nn::ModuleDict(\n  (key): ...\n)".
class ModuleDictImpl : public Module {
 public:
  using Dict = OrderedDict<std::string, std::shared_ptr<Module>>;
  using Pairs = std::vector<std::pair<std::string, std::shared_ptr<Module>>>;

  ModuleDictImpl();
  /// The modules under their names, in order (a repeated name keeps the last module, as update).
  explicit ModuleDictImpl(const Pairs& modules);
  explicit ModuleDictImpl(const Dict& modules);

  /// The module under `key` (as LibTorch, a shared_ptr): IndexError naming
  /// the key when there is none.
  std::shared_ptr<Module> operator[](const std::string& key) const { return checked(key); }
  template <class T>
  T& at(const std::string& key) {
    return *detail::module_cast<T>("nn::ModuleDict", checked(key));
  }
  bool contains(const std::string& key) const noexcept { return modules_.contains(key); }
  std::vector<std::string> keys() const { return modules_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return modules_.values(); }
  /// (name, module) pairs in order.
  Pairs items() const;
  std::size_t size() const noexcept { return modules_.size(); }
  bool empty() const noexcept { return modules_.is_empty(); }
  auto begin() { return modules_.begin(); }
  auto end() { return modules_.end(); }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

  /// Removes the module under `key` and returns it (IndexError when there is
  /// none). Unlike LibTorch, whose pop and clear leave the module registered
  /// (its parameters still listed), kiln unregisters it, as PyTorch does.
  std::shared_ptr<Module> pop(const std::string& key);
  void clear();
  /// Adds each (name, module); a name already present gets the new module in its place.
  void update(const Pairs& modules);
  void update(const Dict& modules);
  void update(const ModuleDictImpl& other) { update(other.modules_); }

 private:
  const std::shared_ptr<Module>& checked(const std::string& key) const;
  void set(const std::string& key, std::shared_ptr<Module> module);
  /// Registers modules_ again as the submodules, in order.
  void sync_children();

  Dict modules_{"Module"};
};
KILN_MODULE(ModuleDict);

}  // namespace kiln::nn

// kiln::nn::ModuleList: LibTorch's torch::nn::ModuleList, an indexable list
// of submodules registered as "0", "1", ... (so their parameters are named
// "0.weight", ...). It has no forward: the owner calls the modules.
//
//   ModuleList layers(Linear(3, 4), Linear(4, 4));
//   for (std::size_t i = 0; i < layers->size(); ++i) x = layers->at<LinearImpl>(i).forward(x);
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include <kiln/nn/containers/any.h>
#include <kiln/nn/module.h>

namespace kiln::nn {

/// Prints as LibTorch lays it out: "kiln::nn::ModuleList(\n  (0): ...\n)".
class ModuleListImpl : public Module {
 public:
  using Iterator = std::vector<std::shared_ptr<Module>>::iterator;
  using ConstIterator = std::vector<std::shared_ptr<Module>>::const_iterator;

  ModuleListImpl();
  /// The modules in order (values, shared_ptrs or holders).
  template <class... Modules>
    requires detail::ModuleArguments<ModuleListImpl, Modules...>
  explicit ModuleListImpl(Modules&&... modules) : ModuleListImpl() {
    (push_back(std::forward<Modules>(modules)), ...);
  }

  /// Appends a module, named by its position (ValueError for an empty pointer).
  void push_back(std::shared_ptr<Module> module);
  template <class M>
  void push_back(M&& module) {
    push_back(std::shared_ptr<Module>(detail::module_shared_ptr(std::forward<M>(module))));
  }
  /// Appends every module of `container` (a ModuleList or a range of modules).
  template <class Container>
  void extend(const Container& container) {
    // A copy first: `list->extend(*list)` must not read what it appends.
    std::vector<std::shared_ptr<Module>> added;
    for (const auto& module : container) added.push_back(detail::module_shared_ptr(module));
    for (auto& module : added) push_back(std::move(module));
  }
  /// Inserts before position `index` (0 <= index <= size()); the modules
  /// after it are renamed to their new positions. IndexError otherwise.
  void insert(std::size_t index, std::shared_ptr<Module> module);
  template <class M>
  void insert(std::size_t index, M&& module) {
    insert(index, std::shared_ptr<Module>(detail::module_shared_ptr(std::forward<M>(module))));
  }

  /// The module at `index` (as LibTorch, a shared_ptr): IndexError naming
  /// the index and the size when out of range.
  std::shared_ptr<Module> operator[](std::size_t index) const { return ptr(index); }
  const std::shared_ptr<Module>& ptr(std::size_t index) const;
  template <class T>
  std::shared_ptr<T> ptr(std::size_t index) const {
    return detail::module_cast<T>("nn::ModuleList", ptr(index));
  }
  template <class T>
  T& at(std::size_t index) {
    return *ptr<T>(index);
  }
  std::size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  Iterator begin() { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator begin() const { return modules_.begin(); }
  ConstIterator end() const { return modules_.end(); }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};
KILN_MODULE(ModuleList);

}  // namespace kiln::nn

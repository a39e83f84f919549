// kiln::nn::Sequential: LibTorch's torch::nn::Sequential, modules called in
// order, each one's output the next one's input. Submodules are registered
// as "0", "1", ... (or by the names given), so parameters are named
// "0.weight", "2.bias" as in LibTorch.
//
//   Sequential net(Linear(784, 64), ReLU(), Linear(64, 10));
//   Sequential named({{"fc", Linear(3, 4)}, {"act", ReLU()}});
//   Tensor y = net->forward(x);   // or net(x)
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <kiln/nn/containers/any.h>
#include <kiln/nn/module.h>

namespace kiln::nn {

/// Prints as LibTorch lays it out: "kiln::nn::Sequential(\n  (0): ...\n)".
class SequentialImpl : public Module {
 public:
  using Iterator = std::vector<AnyModule>::iterator;
  using ConstIterator = std::vector<AnyModule>::const_iterator;

  SequentialImpl();
  /// The modules in order (values, shared_ptrs, holders or AnyModules).
  template <class... Modules>
    requires detail::ModuleArguments<SequentialImpl, Modules...>
  explicit SequentialImpl(Modules&&... modules) : SequentialImpl() {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  /// The modules under the names given.
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules);

  /// Appends a module, named by its position.
  template <class M>
  void push_back(M&& module) {
    push_back(std::to_string(modules_.size()), std::forward<M>(module));
  }
  /// Appends a module under `name` (ValueError if taken, empty or dotted).
  void push_back(std::string name, AnyModule module);
  template <class M>
  void push_back(std::string name, M&& module) {
    push_back(std::move(name), AnyModule(std::forward<M>(module)));
  }
  /// Appends every module of `other` (named by position here).
  void extend(const SequentialImpl& other);
  template <class Container>
  void extend(const Container& container) {
    for (const auto& module : container) push_back(module);
  }

  /// Each module's forward applied in turn; ValueError on an empty Sequential.
  /// `forward<Tensor>(x)` is accepted as LibTorch spells it.
  template <class ReturnType = Tensor>
  ReturnType forward(const Tensor& input) {
    static_assert(std::is_same_v<ReturnType, Tensor>, "kiln's Sequential::forward returns a Tensor");
    return chain(input);
  }

  /// The module at `index` (as LibTorch, a shared_ptr): IndexError naming
  /// the index and the size when out of range.
  std::shared_ptr<Module> operator[](std::size_t index) const { return ptr(index); }
  std::shared_ptr<Module> ptr(std::size_t index) const { return at_index(index).ptr(); }
  template <class T>
  std::shared_ptr<T> ptr(std::size_t index) const {
    return detail::module_cast<T>("nn::Sequential", ptr(index));
  }
  template <class T>
  T& at(std::size_t index) {
    return *ptr<T>(index);
  }
  std::size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  /// Iterates the modules as AnyModule.
  Iterator begin() { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator begin() const { return modules_.begin(); }
  ConstIterator end() const { return modules_.end(); }

 private:
  const AnyModule& at_index(std::size_t index) const;
  Tensor chain(const Tensor& input);

  std::vector<AnyModule> modules_;
};

/// The holder, with LibTorch's named construction from a braced list.
class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  Sequential() : ModuleHolder<SequentialImpl>() {}
  Sequential(std::initializer_list<NamedAnyModule> named_modules)
      : ModuleHolder<SequentialImpl>(std::make_shared<SequentialImpl>(named_modules)) {}
};

}  // namespace kiln::nn

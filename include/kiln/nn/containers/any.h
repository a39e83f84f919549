// kiln::nn::AnyModule: LibTorch's torch::nn::AnyModule, a type-erased
// handle to any module with a forward, so containers (Sequential) can hold
// modules of different types and call them alike. kiln's AnyModule forwards
// one Tensor to a Tensor (LibTorch's also carries other signatures through
// AnyValue); a module whose forward cannot be called that way is rejected at
// compile time.
//
//   AnyModule any(Linear(3, 4));
//   Tensor y = any.forward(x);
//   LinearImpl& fc = any.get<LinearImpl>();
#pragma once

#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include <kiln/nn/module.h>

namespace kiln::nn {

namespace detail {

/// A module type whose forward takes one Tensor and returns a Tensor.
template <class M>
concept TensorForward = std::derived_from<M, Module> && requires(M& m, Tensor& x) {
  { m.forward(x) } -> std::convertible_to<Tensor>;
};

/// Arguments a container's constructor takes as its modules: at least one,
/// and not a lone container of the same type (that is a copy).
template <class Self, class... Args>
concept ModuleArguments =
    sizeof...(Args) > 0 && !(sizeof...(Args) == 1 && (std::is_same_v<std::decay_t<Args>, Self> && ...));

/// ValueError: the module held is not a `wanted` (AnyModule::get, containers' at<T>).
[[noreturn]] void throw_bad_module_cast(const char* op, const Module& module, const std::type_info& wanted);
/// ValueError: an empty AnyModule was used.
[[noreturn]] void throw_empty_any_module(const char* what);

/// The module of `m` (a module value, a shared_ptr to one, or its holder) as a shared_ptr.
template <class M>
auto module_shared_ptr(M&& m) {
  using D = std::decay_t<M>;
  if constexpr (std::is_base_of_v<Module, D>) return std::make_shared<D>(std::forward<M>(m));
  else if constexpr (requires { typename D::element_type; }) return std::shared_ptr<typename D::element_type>(m);
  else return m.ptr();
}

/// `module` as T, or a ValueError naming both types.
template <class T>
std::shared_ptr<T> module_cast(const char* op, const std::shared_ptr<Module>& module) {
  auto typed = std::dynamic_pointer_cast<T>(module);
  if (!typed) throw_bad_module_cast(op, *module, typeid(T));
  return typed;
}

}  // namespace detail

/// A module of any type with a forward(Tensor) -> Tensor, held by shared_ptr.
class AnyModule {
 public:
  /// The empty state: forward, ptr and get throw ValueError.
  AnyModule() = default;
  template <detail::TensorForward M>
  explicit AnyModule(std::shared_ptr<M> module)
      : module_(module), forward_([module](const Tensor& x) -> Tensor {
          Tensor in = x;
          return module->forward(in);
        }) {}
  /// A module value is moved into a new shared_ptr.
  template <class M, std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>, int> = 0>
  explicit AnyModule(M&& module) : AnyModule(std::make_shared<std::decay_t<M>>(std::forward<M>(module))) {}
  template <class M>
  explicit AnyModule(const ModuleHolder<M>& holder) : AnyModule(holder.ptr()) {}

  /// Calls the module's forward. `forward<Tensor>(x)` is accepted as LibTorch
  /// spells it; kiln's AnyModule returns nothing but a Tensor.
  template <class ReturnType = Tensor>
  ReturnType forward(const Tensor& input) const {
    static_assert(std::is_same_v<ReturnType, Tensor>, "kiln's AnyModule::forward returns a Tensor");
    if (!forward_) detail::throw_empty_any_module("forward()");
    return forward_(input);
  }
  /// The module, as a Module or (checked) as T.
  const std::shared_ptr<Module>& ptr() const {
    if (!module_) detail::throw_empty_any_module("ptr()");
    return module_;
  }
  template <class T>
  std::shared_ptr<T> ptr() const {
    return detail::module_cast<T>("nn::AnyModule", ptr());
  }
  /// The module as T (a module class), or a holder of it when T is a
  /// holder (`get<Linear>()`): ValueError naming both types when it is not one.
  template <class T>
  decltype(auto) get() const {
    if constexpr (requires { typename T::ContainedType; }) return T(ptr<typename T::ContainedType>());
    else return static_cast<T&>(*ptr<T>());
  }
  bool is_empty() const noexcept { return module_ == nullptr; }
  /// The dynamic type of the module held.
  const std::type_info& type_info() const {
    const Module& m = *ptr();
    return typeid(m);
  }

 private:
  std::shared_ptr<Module> module_;
  std::function<Tensor(const Tensor&)> forward_;
};

/// A name and a module, for Sequential's named construction:
/// `Sequential({{"fc", Linear(3, 4)}, {"act", ReLU()}})`.
class NamedAnyModule {
 public:
  NamedAnyModule(std::string name, AnyModule module) : name_(std::move(name)), module_(std::move(module)) {}
  template <class M>
  NamedAnyModule(std::string name, std::shared_ptr<M> module)
      : NamedAnyModule(std::move(name), AnyModule(std::move(module))) {}
  template <class M, std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>, int> = 0>
  NamedAnyModule(std::string name, M&& module) : NamedAnyModule(std::move(name), AnyModule(std::forward<M>(module))) {}
  template <class M>
  NamedAnyModule(std::string name, const ModuleHolder<M>& holder)
      : NamedAnyModule(std::move(name), AnyModule(holder)) {}

  const std::string& name() const noexcept { return name_; }
  const AnyModule& module() const noexcept { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

}  // namespace kiln::nn

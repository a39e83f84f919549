// kiln::nn::Module: LibTorch's torch::nn::Module. A module owns named
// parameters (leaves that require grad), buffers (state that is not
// trained, e.g. running statistics) and submodules, and answers for the
// whole tree: parameters() for an optimizer, train()/eval(), zero_grad(),
// to(dtype), printing. Layers are `XImpl : Module` used through the holder
// `X` (KILN_MODULE / TORCH_MODULE), as in LibTorch:
//
//   struct NetImpl : kiln::nn::Module {
//     NetImpl() { fc = register_module("fc", kiln::nn::Linear(784, 10)); }
//     kiln::Tensor forward(kiln::Tensor x) { return fc(x); }
//     kiln::nn::Linear fc{nullptr};
//   };
//   TORCH_MODULE(Net);
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <kiln/frontend/tensor.h>
#include <kiln/ordered_dict.h>

namespace kiln::serialize {
class OutputArchive;
class InputArchive;
}  // namespace kiln::serialize

namespace kiln::nn {

template <class Contained>
class ModuleHolder;

class Module : public std::enable_shared_from_this<Module> {
 public:
  /// A module named `name` (printing and error messages); without a name,
  /// its demangled class name.
  explicit Module(std::string name);
  Module();
  virtual ~Module() = default;
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;

  const std::string& name() const noexcept;

  /// This module's parameters and, with `recurse`, its submodules'
  /// (depth first, in registration order).
  std::vector<Tensor> parameters(bool recurse = true) const;
  /// The same, keyed by dotted path ("fc1.weight").
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;
  /// Direct submodules.
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;
  /// Every module of the tree, this one first when `include_self`.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true);
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(const std::string& name_prefix = "",
                                                                  bool include_self = true);

  /// Training mode for this module and every submodule (dropout drops,
  /// batch norm uses batch statistics).
  virtual void train(bool on = true);
  void eval() { train(false); }
  virtual bool is_training() const noexcept { return is_training_; }
  /// Resets every parameter's gradient: undefined (set_to_none, LibTorch's
  /// default), or zeros in place.
  virtual void zero_grad(bool set_to_none = true);
  /// Converts every floating-point parameter and buffer to `dtype`, keeping
  /// the tensors' identity (handles the module holds see the new values).
  virtual void to(ScalarType dtype, bool non_blocking = false);
  /// Moves the module to `device`: nothing to do on the CPU, a ValueError
  /// for CUDA (kiln/device.h).
  virtual void to(Device device, bool non_blocking = false);
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);

  /// Writes every parameter and buffer of the tree under its dotted name
  /// (LibTorch's Module::save; kiln/serialize.h).
  virtual void save(serialize::OutputArchive& archive) const;
  /// Copies the values written by save() into this module's parameters and
  /// buffers in place, without gradient history, keeping the tensors'
  /// identity and requires_grad. Every name, dtype and shape must match
  /// exactly: an entry missing from the file or not in the module is a
  /// ValueError, a different dtype a DtypeError, a different shape a
  /// ShapeError, each naming the file, the entry and both shapes. All entries
  /// are checked before any is copied, so on error nothing has changed.
  virtual void load(serialize::InputArchive& archive);

  /// Calls `fn` on every module of the tree, this one first.
  void apply(const std::function<void(Module&)>& fn);
  void apply(const std::function<void(const std::string&, Module&)>& fn, const std::string& name_prefix = "");

  /// Prints this module alone (its name and options); operator<< adds the
  /// submodules, as LibTorch lays them out.
  virtual void pretty_print(std::ostream& stream) const;

  /// Registers a parameter (sets requires_grad on it). Names must be new,
  /// non-empty and without dots: ValueError otherwise.
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  Tensor& register_buffer(std::string name, Tensor tensor);
  template <class M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    add_child(std::move(name), module);
    return module;
  }
  template <class M>
  std::shared_ptr<M> register_module(std::string name, ModuleHolder<M> holder) {
    return register_module(std::move(name), holder.ptr());
  }

  /// This module as a `M` (a module class such as LinearImpl, or its holder
  /// Linear), or null if it is not one: LibTorch's `module->as<Linear>()`.
  template <class M>
  auto* as() noexcept {
    if constexpr (requires { typename M::ContainedType; }) return dynamic_cast<typename M::ContainedType*>(this);
    else return dynamic_cast<M*>(this);
  }
  template <class M>
  const auto* as() const noexcept {
    return const_cast<Module*>(this)->as<M>();
  }

  /// The module tree printed with pretty_print at every level.
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;

 protected:
  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};

 private:
  void add_child(std::string name, std::shared_ptr<Module> module);
  void collect_named(const std::string& prefix, bool recurse, bool buffers,
                     OrderedDict<std::string, Tensor>& out) const;

  mutable std::optional<std::string> name_;
  bool is_training_ = true;
};

std::ostream& operator<<(std::ostream& stream, const Module& module);

/// A module by shared pointer, with the module's forward() as operator():
/// LibTorch's ModuleHolder. `Linear fc = nullptr;` is the empty state.
template <class Contained>
class ModuleHolder {
 public:
  using ContainedType = Contained;

  /// Constructs the module with its default arguments.
  ModuleHolder() : impl_(default_construct()) {}
  ModuleHolder(std::nullptr_t) {}
  template <class Head, class... Tail,
            class = std::enable_if_t<!(std::is_same_v<std::decay_t<Head>, ModuleHolder> && sizeof...(Tail) == 0) &&
                                     !std::is_same_v<std::decay_t<Head>, std::nullptr_t> &&
                                     !std::is_same_v<std::decay_t<Head>, std::shared_ptr<Contained>>>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}

  explicit operator bool() const noexcept { return !is_empty(); }
  bool is_empty() const noexcept { return impl_ == nullptr; }
  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  const std::shared_ptr<Contained>& ptr() const { return checked(); }
  Contained* get() { return checked().get(); }
  const Contained* get() const { return checked().get(); }

  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    return get()->forward(std::forward<Args>(args)...);
  }
  /// The module's own operator[] (containers: `seq[0]`, `dict["fc"]`).
  template <class Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }

 private:
  static std::shared_ptr<Contained> default_construct() {
    static_assert(std::is_default_constructible_v<Contained>,
                  "this module has no default constructor: give the holder its arguments, or nullptr for the "
                  "empty state (e.g. `Linear fc = nullptr;`)");
    return std::make_shared<Contained>();
  }
  const std::shared_ptr<Contained>& checked() const {
    if (!impl_) throw ValueError("[nn] accessing an empty ModuleHolder (it was constructed with nullptr)");
    return impl_;
  }
  std::shared_ptr<Contained> impl_;
};

template <class Contained>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<Contained>& holder) {
  return stream << *holder;
}

}  // namespace kiln::nn

/// Declares `Name` as the holder of `NameImpl` (LibTorch's TORCH_MODULE).
#define KILN_MODULE(Name)                                                 \
  class Name : public ::kiln::nn::ModuleHolder<Name##Impl> {             \
   public:                                                                \
    using ::kiln::nn::ModuleHolder<Name##Impl>::ModuleHolder;             \
  }

// nn::Module: registration, traversal of the module tree, modes, printing.
#include <kiln/nn/module.h>

#include <ostream>

#include <kiln/autograd.h>
#include <kiln/error.h>
#include <kiln/frontend/creation.h>

#include "frontend/demangle.h"
#include "frontend/reset_grad.h"

namespace kiln::nn {

namespace {

void check_name(const std::string& what, const std::string& name) {
  if (name.empty()) throw ValueError(kiln::detail::cat("[nn] ", what, " name must not be empty"));
  if (name.find('.') != std::string::npos)
    throw ValueError(kiln::detail::cat("[nn] ", what, " name must not contain a dot (got '", name, "')"));
}

}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;

const std::string& Module::name() const noexcept {
  // The dynamic type is only known once constructed: named on first use.
  if (!name_) name_ = frontend::demangle(typeid(*this));
  return *name_;
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_name("Parameter", name);
  if (tensor.defined()) tensor.set_requires_grad(requires_grad);
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  check_name("Buffer", name);
  return buffers_.insert(std::move(name), std::move(tensor));
}

void Module::add_child(std::string name, std::shared_ptr<Module> module) {
  check_name("Submodule", name);
  if (!module) throw ValueError(kiln::detail::cat("[nn] submodule '", name, "' is empty (nullptr)"));
  children_.insert(std::move(name), std::move(module));
}

void Module::collect_named(const std::string& prefix, bool recurse, bool buffers,
                           OrderedDict<std::string, Tensor>& out) const {
  for (const auto& item : buffers ? buffers_ : parameters_)
    if (item.value().defined()) out.insert(prefix + item.key(), item.value());
  if (!recurse) return;
  for (const auto& child : children_) child.value()->collect_named(prefix + child.key() + ".", true, buffers, out);
}

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<std::string, Tensor> out("Parameter");
  collect_named("", recurse, false, out);
  return out;
}
std::vector<Tensor> Module::parameters(bool recurse) const { return named_parameters(recurse).values(); }

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<std::string, Tensor> out("Buffer");
  collect_named("", recurse, true, out);
  return out;
}
std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const { return children_; }
std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(const std::string& name_prefix,
                                                                        bool include_self) {
  OrderedDict<std::string, std::shared_ptr<Module>> out("Module");
  apply(
      [&](const std::string& key, Module& m) {
        if (&m == this && !include_self) return;
        out.insert(key, m.shared_from_this());
      },
      name_prefix);
  return out;
}
std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) {
  return named_modules("", include_self).values();
}

void Module::apply(const std::function<void(Module&)>& fn) {
  fn(*this);
  for (const auto& child : children_) child.value()->apply(fn);
}

void Module::apply(const std::function<void(const std::string&, Module&)>& fn, const std::string& name_prefix) {
  fn(name_prefix, *this);
  for (const auto& child : children_)
    child.value()->apply(fn, name_prefix.empty() ? child.key() : name_prefix + "." + child.key());
}

void Module::train(bool on) {
  is_training_ = on;
  for (const auto& child : children_) child.value()->train(on);
}

void Module::zero_grad(bool set_to_none) {
  for (const Tensor& p : parameters()) frontend::reset_grad(p, set_to_none);
}

void Module::to(ScalarType dtype, bool) {
  NoGradGuard no_grad;
  for (OrderedDict<std::string, Tensor>* dict : {&parameters_, &buffers_})
    for (auto& item : *dict)
      if (item.value().defined() && is_floating_point(item.value().dtype())) item.value().set_data(item.value().to(dtype));
  for (const auto& child : children_) child.value()->to(dtype);
}
void Module::to(Device device, bool) { detail::check_device(device, "nn::Module::to"); }
void Module::to(Device device, ScalarType dtype, bool non_blocking) {
  to(device, non_blocking);
  to(dtype, non_blocking);
}

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (children_.is_empty()) return;
  stream << "(\n";
  const std::string next = indentation + "  ";
  for (const auto& child : children_) {
    stream << next << "(" << child.key() << "): ";
    child.value()->pretty_print_recursive(stream, next);
    stream << '\n';
  }
  stream << indentation << ")";
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print_recursive(stream, "");
  return stream;
}

}  // namespace kiln::nn

// Custom autograd functions, as LibTorch's torch/csrc/autograd/custom_function.h:
//
//   struct MulConstant : kiln::autograd::Function<MulConstant> {
//     static kiln::Tensor forward(AutogradContext* ctx, kiln::Tensor x, double c) {
//       ctx->saved_data["c"] = c;
//       return x * c;
//     }
//     static variable_list backward(AutogradContext* ctx, variable_list grads) {
//       return {grads[0] * ctx->saved_data["c"].toDouble(), kiln::Tensor()};
//     }
//   };
//   auto y = MulConstant::apply(x, 5.5);
//
// forward runs with gradient recording off; its result gets one node that
// calls backward, which returns one gradient per forward argument
// (undefined for arguments that are not tensors or need none).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include <kiln/frontend/tensor.h>

namespace kiln {

/// A value stored in AutogradContext::saved_data: a number, bool, string,
/// tensor or list of integers (the part of LibTorch's IValue it is used for).
class IValue {
 public:
  IValue() = default;
  IValue(double v) : v_(v) {}
  IValue(float v) : v_(static_cast<double>(v)) {}
  IValue(std::int64_t v) : v_(v) {}
  IValue(int v) : v_(static_cast<std::int64_t>(v)) {}
  IValue(bool v) : v_(v) {}
  IValue(Tensor v) : v_(std::move(v)) {}
  IValue(std::string v) : v_(std::move(v)) {}
  IValue(const char* v) : v_(std::string(v)) {}
  IValue(std::vector<std::int64_t> v) : v_(std::move(v)) {}

  bool isNone() const { return v_.index() == 0; }
  bool isDouble() const { return std::holds_alternative<double>(v_); }
  bool isInt() const { return std::holds_alternative<std::int64_t>(v_); }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isTensor() const { return std::holds_alternative<Tensor>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }
  bool isIntList() const { return std::holds_alternative<std::vector<std::int64_t>>(v_); }

  /// A double, or an integer converted; kiln::ValueError for anything else.
  double toDouble() const;
  std::int64_t toInt() const;
  bool toBool() const;
  const Tensor& toTensor() const;
  const std::string& toStringRef() const;
  const std::vector<std::int64_t>& toIntVector() const;

 private:
  std::variant<std::monostate, double, std::int64_t, bool, Tensor, std::string, std::vector<std::int64_t>> v_;
};

namespace autograd {

using variable_list = std::vector<Tensor>;
class CustomNode;

/// What a custom Function's forward leaves for its backward.
class AutogradContext {
 public:
  /// Tensors backward needs (inputs or outputs of forward); undefined
  /// tensors are allowed and come back undefined.
  void save_for_backward(variable_list to_save);
  /// The saved tensors. kiln::AutogradError if one was modified in place
  /// since it was saved, or if they were freed by an earlier backward.
  variable_list get_saved_variables() const;
  /// Inputs that forward modified in place.
  void mark_dirty(const variable_list& inputs);
  /// Outputs that have no gradient (indices, masks).
  void mark_non_differentiable(const variable_list& outputs);
  /// Whether undefined output gradients reach backward as zeros (default true).
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  /// Whether forward argument `index` needs a gradient.
  bool needs_input_grad(std::size_t index) const;

  /// Anything else backward needs: numbers, flags, shapes, tensors.
  std::unordered_map<std::string, IValue> saved_data;

 private:
  friend class CustomNode;
  variable_list to_save_;
  variable_list dirty_;
  variable_list non_differentiable_;
  bool materialize_grads_ = true;
  CustomNode* node_ = nullptr;
};

namespace detail {

using CustomBackward = variable_list (*)(AutogradContext*, variable_list);

/// Starts a call: `args` holds the forward arguments that are tensors and
/// undefined tensors in the places of the others.
std::shared_ptr<CustomNode> begin_custom(const std::type_info& type, CustomBackward backward, variable_list args,
                                         std::vector<bool> is_tensor);
AutogradContext* context(const std::shared_ptr<CustomNode>& node);
/// Attaches the node to forward's outputs (when any input requires grad).
variable_list finish_custom(const std::shared_ptr<CustomNode>& node, variable_list outputs);

/// Runs forward with gradient recording off (restored on exit and on throw).
class ForwardScope {
 public:
  ForwardScope();
  ~ForwardScope();
  ForwardScope(const ForwardScope&) = delete;
  ForwardScope& operator=(const ForwardScope&) = delete;

 private:
  bool prev_;
};

template <class A>
Tensor as_tensor_arg(const A& a) {
  if constexpr (std::is_same_v<std::decay_t<A>, Tensor>) return a;
  else return Tensor();
}

}  // namespace detail

/// Base of a custom function T with static T::forward(AutogradContext*, ...)
/// and T::backward(AutogradContext*, variable_list).
template <class T>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args) {
    auto node = detail::begin_custom(typeid(T), &T::backward, {detail::as_tensor_arg(args)...},
                                     {std::is_same_v<std::decay_t<Args>, Tensor>...});
    using Out = decltype(T::forward(detail::context(node), std::forward<Args>(args)...));
    static_assert(std::is_same_v<Out, Tensor> || std::is_same_v<Out, variable_list>,
                  "forward must return a Tensor or a variable_list");
    Out out;
    {
      detail::ForwardScope scope;
      out = T::forward(detail::context(node), std::forward<Args>(args)...);
    }
    if constexpr (std::is_same_v<Out, Tensor>) return detail::finish_custom(node, {out})[0];
    else return detail::finish_custom(node, std::move(out));
  }
};

}  // namespace autograd
}  // namespace kiln

// Custom autograd functions (kiln/autograd/function.h): the node that calls
// the user's backward, and the bookkeeping around the user's forward.
#include <algorithm>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>

#include "frontend/autograd/meta.h"
#include "frontend/autograd/saved_variable.h"
#include "frontend/demangle.h"
#include "trace/views.h"

namespace kiln {

// --- IValue ------------------------------------------------------------------

namespace {
[[noreturn]] void wrong_kind(const char* wanted) {
  throw ValueError(kiln::detail::cat("[IValue] the value is not ", wanted));
}
}  // namespace

double IValue::toDouble() const {
  if (isDouble()) return std::get<double>(v_);
  if (isInt()) return static_cast<double>(std::get<std::int64_t>(v_));
  wrong_kind("a number");
}
std::int64_t IValue::toInt() const {
  if (!isInt()) wrong_kind("an integer");
  return std::get<std::int64_t>(v_);
}
bool IValue::toBool() const {
  if (!isBool()) wrong_kind("a bool");
  return std::get<bool>(v_);
}
const Tensor& IValue::toTensor() const {
  if (!isTensor()) wrong_kind("a tensor");
  return std::get<Tensor>(v_);
}
const std::string& IValue::toStringRef() const {
  if (!isString()) wrong_kind("a string");
  return std::get<std::string>(v_);
}
const std::vector<std::int64_t>& IValue::toIntVector() const {
  if (!isIntList()) wrong_kind("a list of integers");
  return std::get<std::vector<std::int64_t>>(v_);
}

namespace autograd {

class CustomNode final : public Node {
 public:
  CustomNode(std::string name, detail::CustomBackward backward, variable_list args, std::vector<bool> is_tensor)
      : Node(edges_of(args)), name_(std::move(name)), backward_(backward), is_tensor_(std::move(is_tensor)),
        args_(std::move(args)) {
    for (const Tensor& a : args_) arg_shapes_.push_back(a.defined() ? a.sizes().vec() : std::vector<std::int64_t>{});
    ctx.node_ = this;
  }

  std::string name() const override { return name_; }

  variable_list apply(variable_list&& grads) override {
    for (std::size_t i = 0; i < grads.size(); ++i)
      if (!grads[i].defined() && ctx.materialize_grads_) grads[i] = zeros(out_shapes_[i], out_dtypes_[i]);
    variable_list res = backward_(&ctx, std::move(grads));
    std::size_t n = is_tensor_.size();
    if (res.size() > n && std::none_of(res.begin() + n, res.end(), [](const Tensor& t) { return t.defined(); }))
      res.resize(n);
    if (res.size() != n)
      throw ValueError(kiln::detail::cat("[", name_, "] function backward returned an incorrect number of gradients "
                                   "(expected ", n, ", got ", res.size(), ")"));
    for (std::size_t k = 0; k < n; ++k) {
      if (!res[k].defined()) continue;
      if (!is_tensor_[k])
        throw ValueError(kiln::detail::cat("[", name_, "] function backward returned a gradient different than an "
                                     "undefined tensor at position ", k, ", but the corresponding forward input "
                                     "was not a Tensor"));
      if (!next_edges_[k].is_valid()) {
        res[k] = Tensor();
        continue;
      }
      if (!(res[k].sizes() == IntArrayRef(arg_shapes_[k])))
        throw ShapeError(kiln::detail::cat("[", name_, "] function backward returned an invalid gradient at index ", k,
                                     " - got ", res[k].sizes(), " but expected shape compatible with ",
                                     IntArrayRef(arg_shapes_[k])));
    }
    return res;
  }

  void release_variables() override {
    for (SavedVariable& s : saved) s.release();
  }

  variable_list finish(variable_list outputs);
  variable_list unpack_saved() {
    variable_list out;
    for (const SavedVariable& s : saved) out.push_back(s.unpack(shared_from_this(), name_.c_str()));
    return out;
  }

  AutogradContext ctx;
  std::vector<SavedVariable> saved;

 private:
  static edge_list edges_of(const variable_list& args) {
    edge_list e;
    for (const Tensor& a : args) e.push_back(a.defined() && grad_mode() ? gradient_edge(*a.impl()) : Edge{});
    return e;
  }
  static bool contains(const variable_list& list, const Tensor& t) {
    return std::any_of(list.begin(), list.end(), [&](const Tensor& x) { return x.defined() && x.impl() == t.impl(); });
  }

  std::string name_;
  detail::CustomBackward backward_;
  std::vector<bool> is_tensor_;
  variable_list args_;  // only until finish(): the graph must not keep forward's inputs alive
  std::vector<std::vector<std::int64_t>> arg_shapes_;
  std::vector<std::vector<std::int64_t>> out_shapes_;
  std::vector<ScalarType> out_dtypes_;
};

variable_list CustomNode::finish(variable_list outputs) {
  bool executable = std::any_of(next_edges_.begin(), next_edges_.end(), [](const Edge& e) { return e.is_valid(); });
  set_num_inputs(static_cast<std::uint32_t>(outputs.size()));
  auto self = shared_from_this();
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    out_shapes_.push_back(out.defined() ? out.sizes().vec() : std::vector<std::int64_t>{});
    out_dtypes_.push_back(out.defined() ? out.dtype() : kDefaultFloat);
    if (!out.defined()) continue;
    bool dirty = contains(ctx.dirty_, out);
    if (dirty) {
      const AutogradMeta* m = meta(*out.impl());
      if (m && m->requires_grad && !m->grad_fn)
        throw AutogradError(kiln::detail::cat("[", name_, "] a leaf Variable that requires grad (",
                                        describe(*out.impl()), ") has been used in an in-place operation."));
    } else if (contains(args_, out)) {
      out = Tensor(trace::alias(*out.impl(), out.impl()->geo));  // an input returned as is gets a history of its own
    }
    if (executable && !contains(ctx.non_differentiable_, out) && out.is_floating_point())
      set_history(*out.impl(), self, static_cast<std::uint32_t>(i));
  }
  if (executable)
    for (const Tensor& t : ctx.to_save_) saved.emplace_back(t, t.defined() && contains(outputs, t));
  // Nothing the node keeps may hold its own outputs (a reference cycle):
  // the marks were only needed until here.
  ctx.to_save_.clear();
  ctx.dirty_.clear();
  ctx.non_differentiable_.clear();
  args_.clear();
  return outputs;
}

}  // namespace autograd

namespace autograd {

void AutogradContext::save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }
variable_list AutogradContext::get_saved_variables() const { return node_->unpack_saved(); }
void AutogradContext::mark_dirty(const variable_list& inputs) { dirty_ = inputs; }
void AutogradContext::mark_non_differentiable(const variable_list& outputs) { non_differentiable_ = outputs; }
bool AutogradContext::needs_input_grad(std::size_t index) const {
  return index < node_->next_edges().size() && node_->next_edges()[index].is_valid();
}

namespace detail {

std::shared_ptr<CustomNode> begin_custom(const std::type_info& type, CustomBackward backward, variable_list args,
                                         std::vector<bool> is_tensor) {
  return std::make_shared<CustomNode>(frontend::demangle(type), backward, std::move(args), std::move(is_tensor));
}

AutogradContext* context(const std::shared_ptr<CustomNode>& node) { return &node->ctx; }

variable_list finish_custom(const std::shared_ptr<CustomNode>& node, variable_list outputs) {
  return node->finish(std::move(outputs));
}

}  // namespace detail
}  // namespace autograd
}  // namespace kiln

// Autograd, with LibTorch's names and semantics (torch::autograd).
//
// A tensor that requires grad records, for every op applied to it, a graph
// node (`grad_fn()`) that knows the op's gradient. `backward()` walks that
// graph from the output and records each node's gradient formula as
// ordinary kiln ops: the gradient computation is deferred, fused and
// compiled by the JIT like the forward ops it follows, so a whole training
// step becomes one recurring op sequence.
//
//   auto x = kiln::ones({2, 2}, kiln::requires_grad());
//   auto y = (x + 2).pow(2).mean();
//   y.backward();                     // x.grad() is 2 * (x + 2) / 4
//
// Differences from LibTorch, on purpose:
// - Composite ops (var, std, norm, clamp, silu, ...) get the gradient of the
//   primitives they are built from, so their grad_fn names the last
//   primitive (e.g. `SqrtBackward0` for std). mean, softmax, log_softmax and
//   cat have nodes of their own, named as in LibTorch.
// - Gradients are pending values like any other result: reading one
//   (printing, item(), data_ptr()) runs the backward ops it depends on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <kiln/frontend/options.h>
#include <kiln/frontend/tensor.h>

namespace kiln {

/// `kiln::zeros({2}, kiln::requires_grad())`: options asking for gradients.
inline TensorOptions requires_grad(bool on = true) { return TensorOptions().requires_grad(on); }

namespace autograd {

using variable_list = std::vector<Tensor>;
using tensor_list = std::vector<Tensor>;

class Node;
struct NodeHooks;

/// Where a gradient flows: input `input_nr` of `function` (null: nowhere).
struct Edge {
  std::shared_ptr<Node> function;
  std::uint32_t input_nr = 0;
  bool is_valid() const { return function != nullptr; }
};

namespace detail {
/// Hands out a node's edge array (every recorded op makes one) from
/// per-thread free lists when it holds at most three edges, as most do.
struct EdgeBlocks {
  static Edge* allocate(std::size_t n);
  static void deallocate(Edge* p, std::size_t n) noexcept;
};
template <class T>
struct EdgeAllocator {
  using value_type = T;
  EdgeAllocator() = default;
  template <class U>
  EdgeAllocator(const EdgeAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return EdgeBlocks::allocate(n); }
  void deallocate(T* p, std::size_t n) noexcept { EdgeBlocks::deallocate(p, n); }
  template <class U>
  bool operator==(const EdgeAllocator<U>&) const noexcept {
    return true;
  }
};
}  // namespace detail

/// A node's edges, one per forward input (LibTorch's edge_list).
using edge_list = std::vector<Edge, detail::EdgeAllocator<Edge>>;

/// A node of the backward graph: the gradient of one recorded op (or of a
/// custom Function, or the accumulation into a leaf's .grad).
class Node : public std::enable_shared_from_this<Node> {
 public:
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// LibTorch's name for the node, e.g. "AddBackward0", "MmBackward0".
  virtual std::string name() const = 0;
  /// One edge per forward input, in order: where each input's gradient goes.
  const edge_list& next_edges() const { return next_edges_; }
  std::size_t num_outputs() const { return next_edges_.size(); }
  /// Gradients this node receives: one per output of the forward op.
  std::uint32_t num_inputs() const { return num_inputs_; }
  /// Creation order on its thread; backward runs later nodes first.
  std::uint64_t sequence_nr() const { return sequence_nr_; }

  /// Gradients of the forward inputs (one per next edge; undefined where
  /// none) from those of its outputs. Records ops; runs nothing.
  virtual variable_list apply(variable_list&& grads) = 0;
  variable_list operator()(variable_list&& grads) { return apply(std::move(grads)); }
  /// Frees the values saved for backward (after a backward without
  /// retain_graph); a later apply throws kiln::AutogradError.
  virtual void release_variables() {}

  /// kiln's own: output slots whose gradient a retain_grad() tensor keeps.
  NodeHooks& hooks();
  bool has_hooks() const { return hooks_ != nullptr; }

 protected:
  explicit Node(edge_list next_edges, std::uint32_t num_inputs = 1);
  void set_num_inputs(std::uint32_t n) { num_inputs_ = n; }
  edge_list next_edges_;

 private:
  std::uint32_t num_inputs_;
  std::uint64_t sequence_nr_;
  std::unique_ptr<NodeHooks> hooks_;
};

/// Computes the gradients of `tensors` (weighted by `grad_tensors`; may be
/// omitted for scalars) and accumulates them into the leaves' .grad, or
/// only into `inputs` when given. `retain_graph` defaults to `create_graph`.
void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const variable_list& inputs = {});

/// The gradients of `outputs` with respect to `inputs`, returned instead of
/// accumulated. An input the outputs do not depend on is an error unless
/// `allow_unused` (then its gradient is undefined). With `create_graph` the
/// gradients have a graph of their own (higher-order gradients).
variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs = {},
                   std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                   bool allow_unused = false);

/// Calls `hook(grad)` whenever a backward() pass has accumulated into
/// `leaf`'s .grad for the last time in that pass: `grad` is the leaf's
/// gradient, final for the pass (PyTorch's
/// Tensor.register_post_accumulate_grad_hook, which passes the leaf
/// itself; kiln passes its .grad, so a hook need not hold the leaf it
/// hangs on). Data-parallel training starts reducing a gradient here.
/// kiln::AutogradError when `leaf` is not a leaf that requires grad.
void register_post_accumulate_grad_hook(const Tensor& leaf, std::function<void(const Tensor& grad)> hook);

/// Runs `callback` on this thread when the backward() pass running on it
/// ends, after every gradient is accumulated (PyTorch's
/// Engine::queue_callback): for a hook that starts work the pass must
/// finish before it returns. kiln::AutogradError outside a backward pass.
void queue_callback(std::function<void()> callback);

/// Whether ops record gradient history on this thread (default true).
struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

/// Sets GradMode for a scope and restores it after.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled);
  ~AutoGradMode();
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

/// No gradient history in this scope, on this thread (inference, optimizer updates).
class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

/// LibTorch's InferenceMode: no gradient history in this scope and, as in
/// LibTorch, tensors made here never require grad. kiln has no separate
/// inference tensors, so this is NoGradGuard plus is_enabled().
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true);
  ~InferenceMode();
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled();

 private:
  bool prev_grad_;
  bool prev_inference_;
};

}  // namespace autograd

using autograd::AutoGradMode;
using autograd::GradMode;
using autograd::InferenceMode;
using autograd::NoGradGuard;

}  // namespace kiln

#include <kiln/autograd/function.h>

// A tensor's autograd state (the extension trace::TensorImpl carries), the
// per-thread gradient mode, and the edges that connect results to the graph.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include <kiln/autograd.h>

#include "trace/tensor_impl.h"

namespace kiln::autograd {

struct AutogradMeta final : trace::TensorExtension {
  bool requires_grad = false;  // asked for by a leaf (requires_grad_)
  bool retains_grad = false;
  std::uint32_t output_nr = 0;
  std::shared_ptr<Node> grad_fn;              // null for leaves
  std::weak_ptr<Node> grad_accumulator;       // a leaf's AccumulateGrad, while a graph holds it
  std::mutex accumulator_mutex;               // a leaf is shared by the graphs of several threads
  Tensor grad;
  // For a view of a tensor that autograd tracks: the tensor it is a view
  // of, whose history an in-place write through the view rewrites.
  trace::TensorRef view_base;
  // The storage version the view's grad_fn describes: after a write into
  // the storage by anyone else, the view's history is re-derived from the
  // base's (LibTorch's attr_version).
  std::uint32_t view_version = 0;
  // register_post_accumulate_grad_hook: run by the leaf's AccumulateGrad.
  std::vector<std::function<void(const Tensor&)>> post_accumulate_grad_hooks;
};

inline AutogradMeta* meta(const trace::TensorImpl& t) { return static_cast<AutogradMeta*>(t.autograd.get()); }
AutogradMeta& ensure_meta(trace::TensorImpl& t);

inline bool requires_grad(const trace::TensorImpl& t) {
  const AutogradMeta* m = meta(t);
  return m && (m->requires_grad || m->grad_fn);
}

namespace detail {
// Read by every recorded op: initial-exec, so reading it is one load, not
// a call to __tls_get_addr.
extern thread_local bool grad_enabled __attribute__((tls_model("initial-exec")));
}
inline bool grad_mode() { return detail::grad_enabled; }

/// Whether a result of these operands gets history: gradient mode is on and
/// one of them requires grad. The check every op pays; one load per operand.
inline bool any_requires_grad(std::initializer_list<const trace::TensorImpl*> inputs) {
  if (!grad_mode()) return false;
  for (const trace::TensorImpl* t : inputs)
    if (t && t->autograd && requires_grad(*t)) return true;
  return false;
}

/// Where the gradient of `t` goes: its grad_fn, or the accumulator of a leaf
/// that requires grad; an invalid edge otherwise.
Edge gradient_edge(const trace::TensorImpl& t);
/// Makes `t` output `output_nr` of `fn`.
void set_history(trace::TensorImpl& t, std::shared_ptr<Node> fn, std::uint32_t output_nr = 0);
/// Records that `view` (a fresh alias of `base`) is a view, for in-place
/// writes through it; called for every view of a tensor autograd tracks.
void set_view_base(trace::TensorImpl& view, const trace::TensorImpl& base, const trace::TensorRef& base_ref);

/// LibTorch's description of a tensor in messages: "[Float [3, 4]]".
std::string describe(const trace::TensorImpl& t);

}  // namespace kiln::autograd

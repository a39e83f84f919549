// The backward pass: walks the graph from the outputs, later nodes first,
// and calls each node's formula once all gradients for it have arrived.
// Formulas record kiln ops; nothing runs here, so the whole backward joins
// the trace (and the forward's segment) like any other code.
#include <algorithm>
#include <functional>
#include <queue>
#include <unordered_map>
#include <utility>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>

#include "frontend/autograd/accumulate_grad.h"
#include "frontend/autograd/meta.h"
#include "frontend/autograd/node_hooks.h"
#include "frontend/handle.h"

namespace kiln::autograd {

namespace {

struct NodeState {
  int dependencies = 0;   // edges from needed nodes not yet delivered
  bool needed = false;    // leads to a leaf to accumulate into or an input to capture
  variable_list grads;    // the gradients received so far, summed per slot
};

// One backward call: the graph's nodes, what they receive, what is captured.
class GraphTask {
 public:
  GraphTask(bool create_graph, bool accumulate) : create_graph_(create_graph), accumulate_(accumulate) {}

  // `targets`: the edges whose gradient autograd::grad returns (empty for
  // backward(), which accumulates into every leaf, or into `inputs`).
  void set_targets(const std::vector<Edge>& targets) {
    for (std::size_t i = 0; i < targets.size(); ++i)
      if (targets[i].is_valid()) capture_[key(targets[i])].push_back(i);
    captured_.resize(targets.size());
  }
  void restrict_accumulation(std::vector<const Node*> leaves) { only_leaves_ = std::move(leaves); }

  void run(const std::vector<Edge>& roots, variable_list root_grads);
  void release_saved_values();
  variable_list& captured() { return captured_; }

 private:
  using Key = std::pair<const Node*, std::uint32_t>;
  struct KeyHash {
    std::size_t operator()(const Key& k) const { return std::hash<const Node*>()(k.first) * 31 + k.second; }
  };
  static Key key(const Edge& e) { return {e.function.get(), e.input_nr}; }

  bool is_target(const Node* n) const;
  bool accumulates_into(const Node* n) const;
  void discover(const std::vector<Edge>& roots);
  void deliver(const Edge& e, Tensor grad);

  bool create_graph_;
  bool accumulate_;
  std::vector<const Node*> only_leaves_;
  std::unordered_map<Key, std::vector<std::size_t>, KeyHash> capture_;
  variable_list captured_;
  std::unordered_map<Node*, NodeState> state_;
  std::vector<std::shared_ptr<Node>> executed_;
};

bool GraphTask::accumulates_into(const Node* n) const {
  if (!accumulate_ || !dynamic_cast<const AccumulateGrad*>(n)) return false;
  return only_leaves_.empty() || std::find(only_leaves_.begin(), only_leaves_.end(), n) != only_leaves_.end();
}

bool GraphTask::is_target(const Node* n) const {
  for (const auto& [k, idx] : capture_)
    if (k.first == n) return true;
  return accumulates_into(n);
}

// Finds every node reachable from the roots, marks those that lead to a
// target (the others are never run) and counts each needed node's incoming edges.
void GraphTask::discover(const std::vector<Edge>& roots) {
  std::vector<std::pair<Node*, std::size_t>> stack;  // node, next edge to visit
  for (const Edge& r : roots) {
    if (!r.is_valid() || state_.count(r.function.get())) continue;
    state_[r.function.get()];
    stack.emplace_back(r.function.get(), 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const auto& edges = node->next_edges();
      if (next < edges.size()) {
        Node* child = edges[next++].function.get();
        if (child && !state_.count(child)) {
          state_[child];
          stack.emplace_back(child, 0);
        }
        continue;
      }
      NodeState& s = state_[node];
      s.needed = is_target(node);
      for (const Edge& e : edges)
        if (e.is_valid() && state_[e.function.get()].needed) s.needed = true;
      stack.pop_back();
    }
  }
  for (auto& [node, s] : state_) {
    if (!s.needed) continue;
    s.grads.resize(node->num_inputs());
    for (const Edge& e : node->next_edges())
      if (e.is_valid()) ++state_[e.function.get()].dependencies;
  }
}

void GraphTask::deliver(const Edge& e, Tensor grad) {
  NodeState& s = state_[e.function.get()];
  if (!s.needed || !grad.defined()) return;
  Tensor& slot = s.grads[e.input_nr];
  slot = slot.defined() ? slot + grad : std::move(grad);
}

void GraphTask::run(const std::vector<Edge>& roots, variable_list root_grads) {
  discover(roots);
  // Later nodes first: a node's consumers were created after it.
  auto later = [](const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) {
    return a->sequence_nr() < b->sequence_nr();
  };
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, decltype(later)> ready(later);
  for (std::size_t i = 0; i < roots.size(); ++i) {
    if (!roots[i].is_valid()) continue;
    deliver(roots[i], std::move(root_grads[i]));
  }
  for (const Edge& r : roots) {
    if (!r.is_valid()) continue;
    NodeState& s = state_[r.function.get()];
    if (s.needed && s.dependencies == 0) {
      s.dependencies = -1;  // queued
      ready.push(r.function);
    }
  }
  AutoGradMode mode(create_graph_);
  while (!ready.empty()) {
    std::shared_ptr<Node> node = ready.top();
    ready.pop();
    NodeState& s = state_[node.get()];
    variable_list grads = std::move(s.grads);
    for (std::uint32_t slot = 0; slot < grads.size(); ++slot) {
      auto it = capture_.find({node.get(), slot});
      if (it != capture_.end())
        for (std::size_t i : it->second) captured_[i] = grads[slot];
    }
    if (node->has_hooks())
      for (auto& [slot, weak] : node->hooks().retained)
        if (auto m = weak.lock(); m && grads[slot].defined())
          m->grad = m->grad.defined() ? m->grad + grads[slot] : grads[slot];
    if (dynamic_cast<AccumulateGrad*>(node.get())) {
      if (accumulates_into(node.get())) node->apply(std::move(grads));
      continue;
    }
    bool any = std::any_of(grads.begin(), grads.end(), [](const Tensor& g) { return g.defined(); });
    variable_list out = any ? node->apply(std::move(grads)) : variable_list(node->next_edges().size());
    executed_.push_back(node);
    const auto& edges = node->next_edges();
    for (std::size_t k = 0; k < edges.size(); ++k) {
      if (!edges[k].is_valid()) continue;
      NodeState& child = state_[edges[k].function.get()];
      if (!child.needed) continue;
      if (k < out.size()) deliver(edges[k], std::move(out[k]));
      if (--child.dependencies == 0) ready.push(edges[k].function);
    }
  }
}

void GraphTask::release_saved_values() {
  for (const auto& node : executed_) node->release_variables();
}

// The root edge and the starting gradient of each output.
void roots_of(const variable_list& outputs, const variable_list& grad_outputs, const char* op,
              std::vector<Edge>& roots, variable_list& grads) {
  if (!grad_outputs.empty() && grad_outputs.size() != outputs.size())
    throw ValueError(kiln::detail::cat("[", op, "] got ", grad_outputs.size(), " gradients for ", outputs.size(),
                                 " outputs"));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    if (!out.defined()) throw ValueError(kiln::detail::cat("[", op, "] output ", i, " is an undefined tensor"));
    Edge edge = gradient_edge(*out.impl());
    if (!edge.is_valid())
      throw AutogradError(kiln::detail::cat("[", op, "] element ", i, " of tensors does not require grad and does not "
                                      "have a grad_fn (", describe(*out.impl()), ")"));
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      if (out.numel() != 1)
        throw AutogradError(kiln::detail::cat("[", op, "] grad can be implicitly created only for scalar outputs; output ",
                                        i, " has shape ", out.sizes()));
      g = ones(out.sizes(), out.dtype());
    } else {
      if (!(g.sizes() == out.sizes()))
        throw ShapeError(kiln::detail::cat("[", op, "] Mismatch in shape: grad_output[", i, "] has a shape of ", g.sizes(),
                                     " and output[", i, "] has a shape of ", out.sizes(), "."));
      if (g.dtype() != out.dtype()) {
        if (!g.is_floating_point())
          throw DtypeError(kiln::detail::cat("[", op, "] grad_output[", i, "] has dtype ", g.dtype(), " but output[", i,
                                       "] has dtype ", out.dtype()));
        g = g.to(out.dtype());
      }
    }
    roots.push_back(std::move(edge));
    grads.push_back(std::move(g));
  }
}

// queue_callback's list for the backward pass running on this thread
// (null outside one; a hook's own backward gets its own list).
thread_local std::vector<std::function<void()>>* t_callbacks = nullptr;

class CallbackScope {
 public:
  CallbackScope() : prev_(std::exchange(t_callbacks, &callbacks_)) {}
  ~CallbackScope() { t_callbacks = prev_; }
  CallbackScope(const CallbackScope&) = delete;
  CallbackScope& operator=(const CallbackScope&) = delete;
  // Callbacks may queue more callbacks; those run too.
  void run() {
    for (std::size_t i = 0; i < callbacks_.size(); ++i) {
      std::function<void()> callback = callbacks_[i];  // a copy: queuing more may move the list
      callback();
    }
  }

 private:
  std::vector<std::function<void()>> callbacks_;
  std::vector<std::function<void()>>* prev_;
};

}  // namespace

void queue_callback(std::function<void()> callback) {
  if (!t_callbacks) throw AutogradError("[queue_callback] no backward pass is running on this thread");
  t_callbacks->push_back(std::move(callback));
}

void register_post_accumulate_grad_hook(const Tensor& leaf, std::function<void(const Tensor&)> hook) {
  const trace::TensorImpl& impl = frontend::unwrap(leaf, "register_post_accumulate_grad_hook");
  AutogradMeta* m = meta(impl);
  if (!m || !m->requires_grad || m->grad_fn)
    throw AutogradError(kiln::detail::cat("[register_post_accumulate_grad_hook] only a leaf that requires grad has "
                                          "an accumulated gradient; got ", describe(impl)));
  m->post_accumulate_grad_hooks.push_back(std::move(hook));
}

void backward(const variable_list& tensors, const variable_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph, const variable_list& inputs) {
  std::vector<Edge> roots;
  variable_list grads;
  roots_of(tensors, grad_tensors, "backward", roots, grads);
  GraphTask task(create_graph, true);
  if (!inputs.empty()) {
    std::vector<const Node*> leaves;
    std::vector<Edge> targets;
    for (const Tensor& in : inputs) {
      if (!in.defined() || !requires_grad(*in.impl()))
        throw AutogradError("[backward] an input given to inputs= does not require grad");
      Edge e = gradient_edge(*in.impl());
      if (meta(*in.impl())->grad_fn) {
        in.retain_grad();  // a non-leaf input: its gradient lands in its .grad
        targets.push_back(e);
      }
      leaves.push_back(e.function.get());
    }
    task.restrict_accumulation(std::move(leaves));
    task.set_targets(targets);
  }
  CallbackScope callbacks;
  task.run(roots, std::move(grads));
  if (!retain_graph.value_or(create_graph)) task.release_saved_values();
  callbacks.run();
}

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  std::vector<Edge> roots;
  variable_list grads;
  roots_of(outputs, grad_outputs, "grad", roots, grads);
  std::vector<Edge> targets;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& in = inputs[i];
    if (!in.defined() || !requires_grad(*in.impl()))
      throw AutogradError(kiln::detail::cat("[grad] One of the differentiated Tensors (input ", i,
                                      ") does not require grad"));
    targets.push_back(gradient_edge(*in.impl()));
  }
  GraphTask task(create_graph, false);
  task.set_targets(targets);
  task.run(roots, std::move(grads));
  if (!retain_graph.value_or(create_graph)) task.release_saved_values();
  variable_list result = std::move(task.captured());
  for (std::size_t i = 0; i < result.size(); ++i)
    if (!result[i].defined() && !allow_unused)
      throw AutogradError(kiln::detail::cat("[grad] One of the differentiated Tensors (input ", i, ", ",
                                      describe(*inputs[i].impl()),
                                      ") appears to not have been used in the graph. Set allow_unused=true if "
                                      "this is the desired behavior."));
  return result;
}

}  // namespace kiln::autograd

#include "frontend/autograd/meta.h"

#include <algorithm>
#include <sstream>

#include "frontend/autograd/accumulate_grad.h"
#include "frontend/autograd/copy_slices.h"
#include "frontend/autograd/node_hooks.h"
#include "trace/node.h"
#include "trace/object_pool.h"

namespace kiln::autograd {

namespace {
thread_local std::uint64_t next_sequence_nr __attribute__((tls_model("initial-exec"))) = 0;

// Releasing a node's edges from its destructor nests one destructor per
// node along a chain: dropping the graph of a million-op chain overflowed
// the stack. So the outermost ~Node of a thread collects the edges of
// every node it frees here and releases them in a loop (LibTorch's
// deleteNode does the same).
struct ReleaseList {
  std::vector<std::shared_ptr<Node>> nodes;
  bool releasing = false;
  ~ReleaseList();
};
thread_local ReleaseList released __attribute__((tls_model("initial-exec")));
// Trivially destructible, so readable at any point of thread exit: a graph
// a thread-local held, dropped after the list, frees its nodes nested.
thread_local bool released_gone __attribute__((tls_model("initial-exec"))) = false;
ReleaseList::~ReleaseList() { released_gone = true; }
}  // namespace

namespace detail {

namespace {
constexpr std::size_t kPooledEdges = trace::kMaxArity;
using EdgeFreeList = trace::BlockFreeList<kPooledEdges * sizeof(Edge)>;
}  // namespace

Edge* EdgeBlocks::allocate(std::size_t n) {
  if (n <= kPooledEdges)
    if (void* p = EdgeFreeList::pop()) return static_cast<Edge*>(p);
  return static_cast<Edge*>(::operator new(std::max(n, kPooledEdges) * sizeof(Edge)));
}

void EdgeBlocks::deallocate(Edge* p, std::size_t n) noexcept {
  if (n <= kPooledEdges && EdgeFreeList::push(p)) return;
  ::operator delete(p);
}

}  // namespace detail

Node::Node(edge_list next_edges, std::uint32_t num_inputs)
    : next_edges_(std::move(next_edges)), num_inputs_(num_inputs), sequence_nr_(next_sequence_nr++) {}

Node::~Node() {
  if (released_gone) return;
  ReleaseList& list = released;
  // Only edges this node holds last: a shared one is just a decrement.
  for (Edge& e : next_edges_)
    if (e.function && e.function.use_count() == 1) list.nodes.push_back(std::move(e.function));
  if (list.releasing) return;
  list.releasing = true;
  while (!list.nodes.empty()) {
    std::shared_ptr<Node> last = std::move(list.nodes.back());
    list.nodes.pop_back();
    last.reset();  // its ~Node appends its own edges
  }
  list.releasing = false;
}

NodeHooks& Node::hooks() {
  if (!hooks_) hooks_ = std::make_unique<NodeHooks>();
  return *hooks_;
}

AutogradMeta& ensure_meta(trace::TensorImpl& t) {
  if (!t.autograd) t.autograd = trace::make_pooled<AutogradMeta>();  // one per recorded result
  return *meta(t);
}

Edge gradient_edge(const trace::TensorImpl& t) {
  AutogradMeta* m = meta(t);
  if (!m) return {};
  if (m->view_base) refresh_view_history(t);
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  if (!m->requires_grad) return {};
  std::lock_guard<std::mutex> lock(m->accumulator_mutex);
  std::shared_ptr<Node> acc = m->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(std::static_pointer_cast<AutogradMeta>(t.autograd), t.geo.shape(),
                                           t.dtype);
    m->grad_accumulator = acc;
  }
  return {std::move(acc), 0};
}

void set_history(trace::TensorImpl& t, std::shared_ptr<Node> fn, std::uint32_t output_nr) {
  AutogradMeta& m = ensure_meta(t);
  if (m.retains_grad) {  // the retained gradient follows the tensor to its new node
    auto self = std::static_pointer_cast<AutogradMeta>(t.autograd);
    if (m.grad_fn && m.grad_fn->has_hooks())
      std::erase_if(m.grad_fn->hooks().retained, [&](const auto& h) { return h.second.lock() == self; });
    if (fn) fn->hooks().retained.emplace_back(output_nr, self);
  }
  m.grad_fn = std::move(fn);
  m.output_nr = output_nr;
}

void set_view_base(trace::TensorImpl& view, const trace::TensorImpl& base, const trace::TensorRef& base_ref) {
  const AutogradMeta* bm = meta(base);
  AutogradMeta& vm = ensure_meta(view);
  vm.view_base = bm && bm->view_base ? bm->view_base : base_ref;
  vm.view_version = view.storage->version();
}

std::string describe(const trace::TensorImpl& t) {
  std::ostringstream out;
  out << "[" << t.dtype << " " << t.geo.shape() << "]";
  return out.str();
}

}  // namespace kiln::autograd

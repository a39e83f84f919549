#include "frontend/compiled_program.h"

#include <algorithm>
#include <bit>

#include "frontend/handle.h"
#include "trace/object_pool.h"
#include "trace/trace_buffer.h"

namespace kiln::frontend {
namespace {

// Random draws take their counter offset as a scalar of the segment: a
// replay would repeat the traced call's numbers.
bool draws_random(const trace::Segment& segment) {
  return std::any_of(segment.nodes.begin(), segment.nodes.end(), [](const trace::Node& n) {
    return n.op == trace::OpId::RandUniform || n.op == trace::OpId::RandNormal;
  });
}

std::int32_t arg_with_storage(const std::vector<const trace::TensorImpl*>& args, const trace::Storage* s) {
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i]->storage.get() == s) return static_cast<std::int32_t>(i);
  return -1;
}

bool same_owner(const auto& a, const auto& b) { return !a.owner_before(b) && !b.owner_before(a); }

bool same_scalar(const Scalar& a, const Scalar& b) {
  return a.type() == b.type() && a.to_long() == b.to_long() &&
         std::bit_cast<std::uint64_t>(a.to_double()) == std::bit_cast<std::uint64_t>(b.to_double());
}

bool same_operand(const trace::Operand& a, const trace::Operand& b) {
  return a.value == b.value && a.dtype == b.dtype && a.geo == b.geo &&
         (!a.is_scalar() || same_scalar(a.scalar, b.scalar));
}

// The same ops on the same operands, immediates included.
bool same_nodes(const std::vector<trace::Node>& a, const std::vector<trace::Node>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const trace::Node& x, const trace::Node& y) {
    if (x.op != y.op || x.dtype != y.dtype || x.arity != y.arity || x.attrs.i[0] != y.attrs.i[0] ||
        x.attrs.i[1] != y.attrs.i[1] || !same_operand(x.out, y.out))
      return false;
    for (int k = 0; k < x.arity; ++k)
      if (!same_operand(x.in[k], y.in[k])) return false;
    return true;
  });
}

}  // namespace

std::unique_ptr<CompiledProgram> CompiledProgram::capture(
    const trace::Segment& segment, const detail::CallArgs& args, const std::vector<Tensor>& results,
    const std::vector<std::weak_ptr<autograd::AutogradMeta>>& leaves) {
  if (draws_random(segment)) return nullptr;
  std::vector<const trace::TensorImpl*> arg_impls;
  for (const Tensor* t : args.tensors) {
    if (!t->defined()) return nullptr;
    arg_impls.push_back(&unwrap(*t, "compile"));
  }
  auto p = std::unique_ptr<CompiledProgram>(new CompiledProgram);
  p->values_.assign(args.values.begin(), args.values.end());
  for (std::size_t i = 0; i < arg_impls.size(); ++i) {
    const trace::TensorImpl& a = *arg_impls[i];
    p->args_.push_back(
        {a.dtype, a.geo, arg_with_storage(arg_impls, a.storage.get()), false, args.tensors[i]->requires_grad(), false});
  }

  p->sources_.resize(segment.values.size());
  for (std::size_t v = 0; v < segment.values.size(); ++v) {
    const trace::Value& value = segment.values[v];
    if (value.produced) {
      p->sources_[v].nbytes = value.storage->nbytes();
      p->sources_[v].intermediate = !value.live;
      continue;
    }
    // A value the body found: an argument's memory, or else state
    // (checked below).
    p->sources_[v].arg = arg_with_storage(arg_impls, value.storage.get());
  }
  std::vector<bool> written(segment.values.size(), false);
  for (const trace::Node& node : segment.nodes) {
    written[node.out.value] = true;
    if (std::int32_t a = p->sources_[node.out.value].arg; a >= 0) p->args_[a].written = true;
  }
  // Memory outside the arguments that the body updates in place (a model's
  // parameters and running statistics, an optimizer's buffers) is the
  // program's state: replays read and update the same tensors. Memory it
  // only reads must be an argument: a replay would read that storage even
  // after the body's captured variable names another tensor.
  for (std::size_t v = 0; v < segment.values.size(); ++v) {
    ValueSource& src = p->sources_[v];
    if (segment.values[v].produced || src.arg >= 0) continue;
    if (!written[v]) return nullptr;
    src.state = static_cast<std::int32_t>(p->state_.size());
    p->state_.push_back(segment.values[v].storage);
  }
  p->epoch_ = detail::stateful_programs_epoch();

  auto view_of = [&](const trace::TensorImpl& impl) {
    ResultView view{-1, -1, impl.geo, impl.dtype};
    for (std::size_t v = 0; v < segment.values.size() && view.value < 0; ++v)
      if (segment.values[v].storage == impl.storage && segment.values[v].produced) view.value = static_cast<std::int32_t>(v);
    if (view.value < 0) view.arg = arg_with_storage(arg_impls, impl.storage.get());
    return view;
  };
  bool results_require_grad = false;
  for (const Tensor& r : results) {
    if (!r.defined()) return nullptr;
    ResultView view = view_of(unwrap(r, "compile"));
    if (view.value < 0 && view.arg < 0) return nullptr;  // a tensor made before the call
    p->results_.push_back(view);
    results_require_grad |= r.requires_grad();
  }
  // Gradients the body's backward() made in its arguments' .grad (which
  // were undefined when it began: accumulating into an older gradient
  // would have read a tensor that is no argument).
  for (std::size_t i = 0; i < arg_impls.size(); ++i) {
    const Tensor& grad = args.tensors[i]->grad();
    if (!grad.defined()) continue;
    ResultView view = view_of(unwrap(grad, "compile"));
    if (view.value < 0) continue;  // older than the call, and left alone
    p->args_[i].grad_out = true;
    p->grads_.emplace_back(static_cast<std::int32_t>(i), view);
  }
  // The same for leaves outside the arguments (a model's parameters): a
  // replay sets their .grad as the body's backward did.
  for (const std::weak_ptr<autograd::AutogradMeta>& weak : leaves) {
    std::shared_ptr<autograd::AutogradMeta> leaf = weak.lock();
    if (!leaf || !leaf->grad.defined()) continue;
    const bool is_arg = std::any_of(arg_impls.begin(), arg_impls.end(),
                                    [&](const trace::TensorImpl* a) { return a->autograd.get() == leaf.get(); });
    if (is_arg) continue;
    ResultView view = view_of(unwrap(leaf->grad, "compile"));
    if (view.value >= 0) p->state_grads_.push_back({leaf, view});
  }
  // A replay makes no graph: results with history are only replayable
  // when the body itself ran backward through them.
  if (results_require_grad && p->grads_.empty() && p->state_grads_.empty()) return nullptr;
  // A value the body kept alive other than through its result (a global,
  // a captured container) would not be updated by a replay.
  for (std::size_t v = 0; v < segment.values.size(); ++v) {
    const trace::Value& value = segment.values[v];
    if (!value.produced || !value.live) continue;
    auto is_v = [&](const ResultView& r) { return r.value == static_cast<std::int32_t>(v); };
    bool returned = std::any_of(p->results_.begin(), p->results_.end(), is_v) ||
                    std::any_of(p->grads_.begin(), p->grads_.end(), [&](const auto& g) { return is_v(g.second); }) ||
                    std::any_of(p->state_grads_.begin(), p->state_grads_.end(),
                                [&](const StateGrad& g) { return is_v(g.view); });
    if (!returned) return nullptr;
  }

  p->template_.nodes = segment.nodes;
  p->template_.values = segment.values;
  for (trace::Value& value : p->template_.values) value.storage.reset();
  p->template_.key = segment.key;
  p->template_.reason = segment.reason;
  return p;
}

bool CompiledProgram::matches(const detail::CallArgs& args) const {
  if (args.tensors.size() != args_.size() ||
      !std::equal(args.values.begin(), args.values.end(), values_.begin(), values_.end()))
    return false;
  for (std::size_t i = 0; i < args_.size(); ++i) {
    const Tensor& t = *args.tensors[i];
    if (!t.defined()) return false;
    const trace::TensorImpl& a = unwrap(t, "compile");
    const ArgSignature& s = args_[i];
    if (a.dtype != s.dtype || !(a.geo == s.geo)) return false;
    if (t.requires_grad() != s.requires_grad || (s.grad_out && t.grad().defined())) return false;
    std::int32_t first = static_cast<std::int32_t>(i);
    for (std::size_t j = 0; j < i; ++j)
      if (unwrap(*args.tensors[j], "compile").storage == a.storage) {
        first = static_cast<std::int32_t>(j);
        break;
      }
    if (first != s.same_storage_as) return false;
  }
  if (state_.empty()) return true;
  if (epoch_ != detail::stateful_programs_epoch()) return false;
  if (std::any_of(state_.begin(), state_.end(), [](const auto& s) { return s.expired(); })) return false;
  return std::all_of(state_grads_.begin(), state_grads_.end(), [](const StateGrad& g) {
    std::shared_ptr<autograd::AutogradMeta> leaf = g.leaf.lock();
    return leaf && leaf->requires_grad;
  });
}

bool CompiledProgram::same_as(const CompiledProgram& other) const {
  return args_ == other.args_ && values_ == other.values_ && sources_ == other.sources_ &&
         results_ == other.results_ && grads_ == other.grads_ &&
         std::equal(state_.begin(), state_.end(), other.state_.begin(), other.state_.end(),
                    [](const auto& a, const auto& b) { return same_owner(a, b); }) &&
         std::equal(state_grads_.begin(), state_grads_.end(), other.state_grads_.begin(), other.state_grads_.end(),
                    [](const StateGrad& a, const StateGrad& b) {
                      return same_owner(a.leaf, b.leaf) && a.view == b.view;
                    }) &&
         same_nodes(template_.nodes, other.template_.nodes);
}

bool CompiledProgram::run(const detail::CallArgs& args, std::vector<Tensor>& results) {
  const trace::TensorImpl* few[8];
  std::vector<const trace::TensorImpl*> many(args_.size() > std::size(few) ? args_.size() : 0);
  const trace::TensorImpl** arg_impls = many.empty() ? few : many.data();
  for (std::size_t i = 0; i < args_.size(); ++i) {
    const trace::TensorImpl& a = unwrap(*args.tensors[i], "compile");
    // Ops pending on any thread that write it (or, when the program writes
    // it, read it) run first; a tensor whose value could not be computed throws.
    trace::prepare_access(*a.storage, args_[i].written, profiler::CutReason::Sync);
    arg_impls[i] = &a;
  }

  std::unique_ptr<trace::Segment> seg = take_segment();
  // The next call must not find this call's memory in the spare copy: the
  // arguments and results go. Intermediates stay: no handle sees them, and
  // the engine returns their memory after their last use, so the next call
  // reuses the storage objects (making them cost a fifth of a tiny call).
  // After a failure everything goes, poisoned storages included.
  struct Unbind {
    CompiledProgram& self;
    std::unique_ptr<trace::Segment>& seg;
    bool ran = false;
    ~Unbind() {
      for (std::size_t v = 0; v < seg->values.size(); ++v)
        if (!ran || !self.sources_[v].intermediate) seg->values[v].storage.reset();
      self.give_back(std::move(seg));
    }
  } unbind{*this, seg};
  for (std::size_t v = 0; v < sources_.size(); ++v) {
    const ValueSource& src = sources_[v];
    std::shared_ptr<trace::Storage>& storage = seg->values[v].storage;
    if (src.arg >= 0) {
      storage = arg_impls[src.arg]->storage;
    } else if (src.state >= 0) {
      // Held by the segment while it runs; gone since matches(): nothing has run, unbind restores the spare.
      storage = state_[src.state].lock();
      if (!storage) return false;
      trace::prepare_access(*storage, true, profiler::CutReason::Sync);
    } else if (!src.intermediate || !storage) storage = trace::make_pooled<trace::Storage>(src.nbytes);
  }
  trace::run_segment(*seg);
  unbind.ran = true;

  auto tensor_of = [&](const ResultView& r) {
    auto t = trace::make_pooled<trace::TensorImpl>();
    t->storage = r.value >= 0 ? seg->values[r.value].storage : arg_impls[r.arg]->storage;
    t->geo = r.geo;
    t->dtype = r.dtype;
    return wrap(std::move(t));
  };
  results.clear();
  results.reserve(results_.size());
  for (const ResultView& r : results_) results.push_back(tensor_of(r));
  for (const auto& [arg, view] : grads_) args.tensors[arg]->mutable_grad() = tensor_of(view);
  for (const StateGrad& g : state_grads_)
    if (std::shared_ptr<autograd::AutogradMeta> leaf = g.leaf.lock()) leaf->grad = tensor_of(g.view);
  return true;
}

std::unique_ptr<trace::Segment> CompiledProgram::take_segment() {
  // One call at a time (the common case) takes the copy in the slot
  // without a lock; concurrent calls share the others.
  if (trace::Segment* seg = spare_one_.exchange(nullptr, std::memory_order_acquire))
    return std::unique_ptr<trace::Segment>(seg);
  {
    std::lock_guard lock(mu_);
    if (!spare_.empty()) {
      std::unique_ptr<trace::Segment> seg = std::move(spare_.back());
      spare_.pop_back();
      return seg;
    }
  }
  return std::make_unique<trace::Segment>(template_);
}

void CompiledProgram::give_back(std::unique_ptr<trace::Segment> segment) {
  trace::Segment* empty = nullptr;
  if (spare_one_.compare_exchange_strong(empty, segment.get(), std::memory_order_release)) {
    segment.release();
    return;
  }
  std::lock_guard lock(mu_);
  spare_.push_back(std::move(segment));
}

CompiledProgram::~CompiledProgram() { delete spare_one_.load(); }

}  // namespace kiln::frontend

// DistributedDataParallel's reducer: buckets of gradients all-reduced
// (averaged) while backward runs, waited for when it ends.
#include <kiln/distributed/data_parallel.h>

#include <algorithm>
#include <chrono>

#include <kiln/autograd.h>
#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

#include "frontend/distributed/work_mpi.h"
#include "profiler/comm_counters.h"

namespace kiln::nn::parallel {

namespace {

void wait_all(std::vector<std::shared_ptr<distributed::Work>>& works) {
  for (auto& w : works) w->wait();
  works.clear();
}

std::int64_t nanoseconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

// Waits for a bucket's all-reduce, counting the wait and the all-reduce's
// own time (their ratio is the overlap fraction of kiln::stats()).
void wait_counted(distributed::Work& work) {
  const auto start = std::chrono::steady_clock::now();
  work.wait();
  profiler::record_backward_comm_wait(nanoseconds(std::chrono::steady_clock::now() - start));
  if (const auto* mpi = dynamic_cast<const distributed::WorkMPI*>(&work))
    profiler::record_gradient_allreduce(nanoseconds(mpi->run_time()));
}

}  // namespace

struct GradientReducer::State : std::enable_shared_from_this<State> {
  struct Bucket {
    std::vector<std::size_t> params;  // indices into `params`
    std::vector<Tensor> grads;        // this pass's final gradients, by slot
    std::size_t ready = 0;
    Tensor flat;                      // being reduced
    std::shared_ptr<distributed::Work> work;
  };

  std::vector<Tensor> params;
  std::vector<Tensor> buffers;
  std::shared_ptr<distributed::ProcessGroup> group;
  DistributedDataParallelOptions options;
  std::vector<Bucket> buckets;
  std::vector<std::pair<std::size_t, std::size_t>> slot_of;  // param -> (bucket, slot)
  bool sync = true;
  bool finalize_queued = false;

  void grad_ready(std::size_t param, const Tensor& grad);
  void launch(Bucket& b);
  void finalize();
};

void GradientReducer::State::grad_ready(std::size_t param, const Tensor& grad) {
  if (!sync) return;
  if (!finalize_queued) {
    finalize_queued = true;
    autograd::queue_callback([weak = weak_from_this()] {
      if (auto state = weak.lock()) state->finalize();
    });
  }
  auto [b, slot] = slot_of[param];
  Bucket& bucket = buckets[b];
  bucket.grads[slot] = grad;
  if (++bucket.ready == bucket.params.size() && options.overlap_) launch(bucket);
}

void GradientReducer::State::launch(Bucket& b) {
  NoGradGuard no_grad;
  std::vector<Tensor> flat_parts;
  for (std::size_t slot = 0; slot < b.params.size(); ++slot) {
    const Tensor& g = b.grads[slot];
    flat_parts.push_back(g.defined() ? g.reshape({-1}) : zeros({params[b.params[slot]].numel()},
                                                              params[b.params[slot]].dtype()));
  }
  b.flat = cat(flat_parts);
  std::vector<Tensor> one{b.flat};
  b.work = group->allreduce(one, distributed::AllreduceOptions{distributed::ReduceOp::AVG});
}

void GradientReducer::State::finalize() {
  finalize_queued = false;
  for (Bucket& b : buckets)
    if (!b.work) launch(b);
  NoGradGuard no_grad;
  for (Bucket& b : buckets) {
    wait_counted(*b.work);
    std::int64_t offset = 0;
    for (std::size_t slot = 0; slot < b.params.size(); ++slot) {
      const Tensor& p = params[b.params[slot]];
      p.mutable_grad() = b.flat.narrow(0, offset, p.numel()).view(p.sizes());
      offset += p.numel();
    }
    b.grads.assign(b.params.size(), Tensor());
    b.ready = 0;
    b.flat = Tensor();
    b.work.reset();
  }
}

GradientReducer::GradientReducer(std::vector<Tensor> parameters, std::vector<Tensor> buffers,
                                 std::shared_ptr<distributed::ProcessGroup> group,
                                 const DistributedDataParallelOptions& options)
    : state_(std::make_shared<State>()) {
  if (!(options.bucket_cap_mb_ > 0))
    throw ValueError(detail::cat("[DistributedDataParallel] bucket_cap_mb must be positive, got ",
                                 options.bucket_cap_mb_));
  State& s = *state_;
  s.group = std::move(group);
  s.options = options;
  s.buffers = std::move(buffers);
  for (Tensor& p : parameters)
    if (p.requires_grad()) s.params.push_back(std::move(p));

  // Every rank starts from rank 0's model.
  std::vector<std::shared_ptr<distributed::Work>> works;
  for (const std::vector<Tensor>* list : {&s.params, &s.buffers})
    for (const Tensor& t : *list) {
      std::vector<Tensor> one{t};
      works.push_back(s.group->broadcast(one));
    }
  wait_all(works);

  // Buckets in reverse registration order, each at most bucket_cap_mb (or
  // one parameter larger than that) and of one dtype. The first is at most
  // 1 MiB, as PyTorch's (_DEFAULT_FIRST_BUCKET_BYTES): its gradients are
  // final first, and a small first bucket starts communication while most
  // of backward is still to run. With 25 MiB for every bucket the MLP
  // 784-512-512-10 (2.6 MiB of gradients) was one bucket, all-reduced after
  // backward had ended: nothing overlapped.
  const double cap = options.bucket_cap_mb_ * 1024 * 1024;
  const double first_cap = std::min(cap, double{1 << 20});
  s.slot_of.resize(s.params.size());
  double bytes = 0;
  for (std::size_t k = s.params.size(); k-- > 0;) {
    const Tensor& p = s.params[k];
    const double size = static_cast<double>(p.numel() * element_size(p.dtype()));
    const bool fits = !s.buckets.empty() && bytes + size <= (s.buckets.size() == 1 ? first_cap : cap) &&
                      s.params[s.buckets.back().params.front()].dtype() == p.dtype();
    if (!fits) {
      s.buckets.emplace_back();
      bytes = 0;
    }
    State::Bucket& b = s.buckets.back();
    s.slot_of[k] = {s.buckets.size() - 1, b.params.size()};
    b.params.push_back(k);
    bytes += size;
  }
  for (State::Bucket& b : s.buckets) b.grads.resize(b.params.size());

  std::weak_ptr<State> weak = state_;
  for (std::size_t k = 0; k < s.params.size(); ++k)
    autograd::register_post_accumulate_grad_hook(s.params[k], [weak, k](const Tensor& grad) {
      if (auto state = weak.lock()) state->grad_ready(k, grad);
    });
}

GradientReducer::~GradientReducer() = default;

void GradientReducer::before_forward() {
  State& s = *state_;
  if (!s.options.broadcast_buffers_) return;
  // Not waited for: the forward's reads of a buffer wait for its broadcast.
  for (const Tensor& t : s.buffers) {
    std::vector<Tensor> one{t};
    s.group->broadcast(one);
  }
}

void GradientReducer::set_sync(bool on) { state_->sync = on; }
bool GradientReducer::sync() const { return state_->sync; }

std::vector<std::size_t> GradientReducer::bucket_sizes() const {
  std::vector<std::size_t> sizes;
  for (const State::Bucket& b : state_->buckets) sizes.push_back(b.params.size());
  return sizes;
}

}  // namespace kiln::nn::parallel

// nn::parallel::DistributedDataParallel: data-parallel training over a
// process group, as PyTorch's torch.nn.parallel.DistributedDataParallel
// (LibTorch has no C++ counterpart; the names and defaults are Python's).
// Part of kiln::distributed (link kiln::distributed).
//
//   auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
//   nn::parallel::DistributedDataParallel<Net> ddp(Net(), pg);
//   auto loss = loss_fn(ddp.forward(x_shard), y_shard);
//   loss.backward();      // gradients are averaged over the ranks
//   optimizer.step();     // the same step on every rank
//
// - At construction, every parameter and buffer is broadcast from rank 0,
//   so every rank starts from the same model.
// - Before each forward, buffers (batch-norm statistics) are broadcast from
//   rank 0 (broadcast_buffers, default on).
// - Gradients are grouped into buckets of about bucket_cap_mb (default 25
//   MiB; the first at most 1 MiB, as PyTorch's) in reverse registration
//   order, roughly the order backward makes them. As soon as backward has made every gradient of a bucket final
//   (autograd::register_post_accumulate_grad_hook), the bucket is flattened
//   and all-reduced with ReduceOp::AVG on the communication thread while
//   backward goes on; backward waits for every bucket before it returns
//   (autograd::queue_callback), and each .grad is then a view of its
//   reduced bucket (PyTorch's gradient_as_bucket_view). A parameter that
//   got no gradient in a pass contributes zeros, so every rank reduces the
//   same buckets.
// - no_sync() returns a guard under which backward only accumulates
//   locally; the first backward after it reduces the accumulated gradients.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include <kiln/distributed.h>
#include <kiln/frontend/tensor.h>

namespace kiln::nn::parallel {

struct DistributedDataParallelOptions {
  /// Bucket size bound, in MiB (PyTorch's bucket_cap_mb).
  DistributedDataParallelOptions& bucket_cap_mb(double mb) {
    bucket_cap_mb_ = mb;
    return *this;
  }
  /// Broadcast buffers from rank 0 before each forward.
  DistributedDataParallelOptions& broadcast_buffers(bool on) {
    broadcast_buffers_ = on;
    return *this;
  }
  /// Reduce each bucket as soon as it is ready during backward (default);
  /// false reduces them all at the end of backward (to measure the overlap).
  DistributedDataParallelOptions& overlap(bool on) {
    overlap_ = on;
    return *this;
  }
  double bucket_cap_mb_ = 25;
  bool broadcast_buffers_ = true;
  bool overlap_ = true;
};

/// The module-independent part: buckets, hooks, broadcasts.
class GradientReducer {
 public:
  /// kiln::ValueError for a bucket_cap_mb that is not positive.
  GradientReducer(std::vector<Tensor> parameters, std::vector<Tensor> buffers,
                  std::shared_ptr<distributed::ProcessGroup> group, const DistributedDataParallelOptions& options);
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  void before_forward();
  void set_sync(bool on);
  bool sync() const;
  /// Parameters per bucket, in bucket order (for tests and the docs).
  std::vector<std::size_t> bucket_sizes() const;

 private:
  struct State;
  std::shared_ptr<State> state_;  // the gradient hooks hold it weakly
};

template <class ModuleType>
class DistributedDataParallel {
 public:
  /// Restores gradient synchronization when it goes out of scope.
  class NoSync {
   public:
    explicit NoSync(GradientReducer& r) : r_(&r), prev_(r.sync()) { r.set_sync(false); }
    ~NoSync() { r_->set_sync(prev_); }
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    GradientReducer* r_;
    bool prev_;
  };

  DistributedDataParallel(ModuleType module, std::shared_ptr<distributed::ProcessGroup> group,
                          const DistributedDataParallelOptions& options = {})
      : module_(std::move(module)),
        reducer_(std::make_unique<GradientReducer>(module_->parameters(), module_->buffers(), std::move(group),
                                                   options)) {}

  template <class... Args>
  decltype(auto) forward(Args&&... args) {
    reducer_->before_forward();
    return module_->forward(std::forward<Args>(args)...);
  }
  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    return forward(std::forward<Args>(args)...);
  }

  ModuleType& module() { return module_; }
  std::vector<Tensor> parameters() const { return module_->parameters(); }
  [[nodiscard]] NoSync no_sync() { return NoSync(*reducer_); }
  const GradientReducer& reducer() const { return *reducer_; }

 private:
  ModuleType module_;
  std::unique_ptr<GradientReducer> reducer_;
};

}  // namespace kiln::nn::parallel

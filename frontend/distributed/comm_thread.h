// The communication thread: the only thread that calls MPI, from
// MPI_Init_thread to MPI_Finalize. It runs the queued collectives one at a
// time, in the order they were issued (the same on every rank): first the
// descriptor exchange, then the collective itself, each a non-blocking MPI
// call polled with MPI_Test against the collective's deadline.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <mpi.h>

#include "frontend/distributed/descriptor.h"
#include "frontend/distributed/work_mpi.h"
#include "trace/tensor_impl.h"

namespace kiln::distributed {

/// One collective, as the thread runs it. `start` posts the MPI call;
/// `finish` completes the result (AVG's division, copies out of scratch).
/// The tensors stay referenced and pinned until it completes.
struct Collective {
  Descriptor descriptor;
  std::function<void(MPI_Comm, MPI_Request*)> start;
  std::function<void()> finish;
  std::vector<trace::TensorRef> tensors;   // every tensor it touches (kept alive)
  std::vector<trace::TensorRef> written;   // those it writes (poisoned if it fails)
  std::vector<trace::Storage::Pin> pins;
  std::chrono::milliseconds timeout{0};
  std::shared_ptr<WorkMPI> work;
};

class CommThread {
 public:
  /// Starts the thread and initializes MPI on it; throws DistributedError
  /// when MPI cannot be initialized with a thread level that allows this.
  CommThread();
  /// Runs what is queued, finalizes MPI and joins.
  ~CommThread();
  CommThread(const CommThread&) = delete;
  CommThread& operator=(const CommThread&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  void enqueue(std::unique_ptr<Collective> c);

 private:
  void loop(std::function<void(std::exception_ptr)> started);
  void run(Collective& c);
  /// Polls `requests` until all complete, or ends the job at `deadline`
  /// with `what` and the peers (`peer_of[i]` for request i, -1: none) still owed.
  void poll(std::vector<MPI_Request>& requests, const std::vector<int>& peer_of,
            std::chrono::steady_clock::time_point deadline, const Collective& c, const char* what);

  int rank_ = -1;
  int size_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<Collective>> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace kiln::distributed

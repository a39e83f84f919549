// kiln::distributed: collectives over MPI with LibTorch's c10d names
// (<kiln/c10d.h> adds `namespace c10d = kiln::distributed`). Link
// kiln::distributed (libkiln_distributed), which links Open MPI; libkiln
// itself does not. Run the program under mpirun, one process per rank.
//
//   auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
//   std::vector<kiln::Tensor> grads{grad};
//   auto work = pg->allreduce(grads);  // returns at once
//   ...                                // other work overlaps the reduction
//   work->wait();                      // or just read `grad`: reading waits
//
// Semantics:
// - A collective is a materialization point for its tensors: the ops that
//   compute them run first. The collective then runs on the process
//   group's communication thread, with non-blocking MPI, and writes its
//   results in place, as LibTorch's do. Until its Work completes, any use
//   of those tensors (an op recorded on them, item(), data_ptr(), another
//   collective) waits for it, so a result is an ordinary tensor whose value
//   is pending.
// - Tensors must be contiguous, one per call (as ProcessGroupMPI).
// - Every collective first exchanges a small descriptor (sequence number,
//   kind, dtype, shape, op, root) with every rank: collectives issued in a
//   different order or with different shapes fail on every rank with a
//   DistributedError naming the ranks and shapes, instead of deadlocking.
// - A collective that has not completed within KILN_DIST_TIMEOUT (default
//   300 s) ends the job (MPI_Abort) with a message naming the collective
//   and the ranks that did not answer. An exception escaping on one rank
//   (std::terminate, or the process group destroyed during unwinding) ends
//   the job on every rank with a message naming that rank.
//
// Differences from LibTorch, on purpose: handles are std::shared_ptr
// (c10::intrusive_ptr's role); ReduceOp::AVG is supported (sum, then a
// division on floating dtypes; integer and bool tensors reject it);
// bool SUM and MAX are logical or, MIN and PRODUCT logical and.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include <kiln/error.h>
#include <kiln/frontend/tensor.h>

namespace kiln::distributed {

/// A collective failed: mismatched across ranks, or misused.
class DistributedError : public Error {
 public:
  using Error::Error;
};

/// How allreduce and reduce_scatter combine the ranks' values.
struct ReduceOp {
  enum RedOpType : std::uint8_t { SUM, AVG, PRODUCT, MIN, MAX };
  ReduceOp(RedOpType op = SUM) : op_(op) {}  // NOLINT: implicit, as c10d's
  operator RedOpType() const { return op_; }  // NOLINT
  RedOpType op_;
};

struct AllreduceOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout{0};  // 0: KILN_DIST_TIMEOUT
};
struct BroadcastOptions {
  std::int64_t rootRank = 0;
  std::int64_t rootTensor = 0;
  std::chrono::milliseconds timeout{0};
};
struct AllgatherOptions {
  std::chrono::milliseconds timeout{0};
};
struct ReduceScatterOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout{0};
};
struct BarrierOptions {
  std::chrono::milliseconds timeout{0};
};

/// One collective in flight.
class Work {
 public:
  virtual ~Work() = default;
  /// Whether it has finished (successfully or not); never blocks.
  virtual bool isCompleted() = 0;
  /// Whether it finished without an error.
  virtual bool isSuccess() const = 0;
  /// Blocks until it finishes, then rethrows its failure (a
  /// DistributedError) or returns true. As c10d's Work::wait: a `timeout`
  /// of 0 (kNoTimeout) waits as long as it takes (KILN_DIST_TIMEOUT still
  /// ends a collective that never completes); a positive one throws a
  /// DistributedError when the collective has not finished by then, and
  /// the collective goes on (a later wait() or access to its tensors waits
  /// for it). A negative timeout throws kiln::ValueError.
  virtual bool wait(std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) = 0;
  /// Its failure, null if none (yet).
  virtual std::exception_ptr exception() const = 0;
};

/// The world's processes as one group (MPI_COMM_WORLD). One per process:
/// createProcessGroupMPI initializes MPI on first call and returns the same
/// group after; MPI is finalized when the last handle is dropped.
class ProcessGroupMPI {
 public:
  /// c10d's nested name: ProcessGroup::Work.
  using Work = distributed::Work;

  /// `ranks` must be empty (sub-groups are not supported yet).
  static std::shared_ptr<ProcessGroupMPI> createProcessGroupMPI(std::vector<int> ranks = {});

  virtual ~ProcessGroupMPI() = default;
  virtual int getRank() const = 0;
  virtual int getSize() const = 0;
  /// Ends the job on every rank (MPI_Abort), as c10d's ProcessGroupMPI::abort
  /// does: for a rank that caught a failure the others cannot recover from.
  /// Never returns.
  [[noreturn]] virtual void abort() = 0;

  /// Combines `tensors[0]` across ranks, in place on every rank.
  virtual std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors,
                                          const AllreduceOptions& opts = AllreduceOptions()) = 0;
  /// Copies `tensors[0]` of rank `opts.rootRank` into every rank's `tensors[0]`.
  virtual std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors,
                                          const BroadcastOptions& opts = BroadcastOptions()) = 0;
  /// outputTensors[0][r] = rank r's inputTensors[0], on every rank
  /// (outputTensors[0] holds getSize() tensors shaped as the input).
  virtual std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputTensors,
                                          std::vector<Tensor>& inputTensors,
                                          const AllgatherOptions& opts = AllgatherOptions()) = 0;
  /// outputTensors[0] on rank r = the reduction over ranks of their
  /// inputTensors[0][r] (inputTensors[0] holds getSize() tensors shaped as
  /// the output).
  virtual std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>& outputTensors,
                                               std::vector<std::vector<Tensor>>& inputTensors,
                                               const ReduceScatterOptions& opts = ReduceScatterOptions()) = 0;
  /// Completes once every rank has called it.
  virtual std::shared_ptr<Work> barrier(const BarrierOptions& opts = BarrierOptions()) = 0;

 protected:
  ProcessGroupMPI() = default;
};

/// c10d's base class name, for code that holds a group by it.
using ProcessGroup = ProcessGroupMPI;

/// KILN_DIST_TIMEOUT's value in use: how long a collective may take before
/// the job is ended. Setting it affects collectives issued afterwards.
std::chrono::milliseconds timeout();
void set_timeout(std::chrono::milliseconds timeout);

}  // namespace kiln::distributed

// ProcessGroupMPI: checks a collective's tensors on the caller's thread,
// materializes them, hands them to the communication thread and returns its
// Work at once.
#include <cstring>
#include <limits>

#include <kiln/distributed.h>

#include "frontend/distributed/abort_job.h"
#include "frontend/distributed/comm_thread.h"
#include "frontend/distributed/mpi_types.h"
#include "frontend/handle.h"
#include "trace/record.h"

namespace kiln::distributed {

namespace {

std::size_t byte_size(const trace::TensorImpl& t) {
  return static_cast<std::size_t>(t.geo.numel()) * element_size(t.dtype);
}

class ProcessGroupMPIImpl final : public ProcessGroupMPI {
 public:
  ProcessGroupMPIImpl() { abort_job_on_terminate(comm_.rank()); }
  ~ProcessGroupMPIImpl() override {
    // Dropped while an exception unwinds: this rank will issue no more
    // collectives, so the others would wait for it until their timeout.
    if (std::uncaught_exceptions() > 0) abort_job(comm_.rank(), "the process group was destroyed by an exception");
  }

  int getRank() const override { return comm_.rank(); }
  int getSize() const override { return comm_.size(); }
  [[noreturn]] void abort() override { abort_job(comm_.rank(), "abort() was called"); }

  std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors, const AllreduceOptions& opts) override {
    const trace::TensorRef t = single(tensors, "allreduce");
    const ReduceOp::RedOpType op = opts.reduceOp;
    const MPI_Op mpi = mpi_op(op, t->dtype, "allreduce");
    auto c = make(CollectiveKind::Allreduce, tensors[0], op, 0, opts.timeout);
    void* data = bytes(*c, t, true);
    const auto count = elements(*t, "allreduce");
    const MPI_Datatype type = mpi_type(t->dtype);
    const int ranks = getSize();
    const ScalarType dtype = t->dtype;
    c->start = [=](MPI_Comm comm, MPI_Request* req) { MPI_Iallreduce(MPI_IN_PLACE, data, count, type, mpi, comm, req); };
    if (op == ReduceOp::AVG) c->finish = [=] { divide_in_place(data, count, dtype, ranks); };
    return submit(std::move(c));
  }

  std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors, const BroadcastOptions& opts) override {
    const trace::TensorRef t = single(tensors, "broadcast");
    if (opts.rootRank < 0 || opts.rootRank >= getSize())
      throw ValueError(detail::cat("[broadcast] rootRank ", opts.rootRank, " is not a rank of a group of ", getSize()));
    if (opts.rootTensor != 0)
      throw ValueError(detail::cat("[broadcast] rootTensor must be 0 (one tensor per call), got ", opts.rootTensor));
    const int root = static_cast<int>(opts.rootRank);
    auto c = make(CollectiveKind::Broadcast, tensors[0], ReduceOp::SUM, root, opts.timeout);
    void* data = bytes(*c, t, true);
    const auto count = elements(*t, "broadcast");
    const MPI_Datatype type = mpi_type(t->dtype);
    c->start = [=](MPI_Comm comm, MPI_Request* req) { MPI_Ibcast(data, count, type, root, comm, req); };
    return submit(std::move(c));
  }

  std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputTensors, std::vector<Tensor>& inputTensors,
                                  const AllgatherOptions& opts) override {
    const trace::TensorRef in = single(inputTensors, "allgather");
    const std::vector<trace::TensorRef> outs = per_rank(outputTensors, *in, "allgather", "outputTensors");
    auto c = make(CollectiveKind::Allgather, inputTensors[0], ReduceOp::SUM, 0, opts.timeout);
    const void* send = bytes(*c, in, false);
    std::vector<void*> out_bytes;
    for (const trace::TensorRef& o : outs) out_bytes.push_back(bytes(*c, o, true));
    const auto count = elements(*in, "allgather");
    const MPI_Datatype type = mpi_type(in->dtype);
    const std::size_t chunk = byte_size(*in);
    auto scratch = std::make_shared<std::vector<unsigned char>>(chunk * outs.size());
    c->start = [=](MPI_Comm comm, MPI_Request* req) {
      MPI_Iallgather(send, count, type, scratch->data(), count, type, comm, req);
    };
    c->finish = [=] {
      for (std::size_t r = 0; r < out_bytes.size(); ++r)
        if (chunk) std::memcpy(out_bytes[r], scratch->data() + r * chunk, chunk);
    };
    return submit(std::move(c));
  }

  std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>& outputTensors,
                                       std::vector<std::vector<Tensor>>& inputTensors,
                                       const ReduceScatterOptions& opts) override {
    const trace::TensorRef out = single(outputTensors, "reduce_scatter");
    const std::vector<trace::TensorRef> ins = per_rank(inputTensors, *out, "reduce_scatter", "inputTensors");
    const ReduceOp::RedOpType op = opts.reduceOp;
    const MPI_Op mpi = mpi_op(op, out->dtype, "reduce_scatter");
    auto c = make(CollectiveKind::ReduceScatter, outputTensors[0], op, 0, opts.timeout);
    void* recv = bytes(*c, out, true);
    std::vector<const void*> in_bytes;
    for (const trace::TensorRef& i : ins) in_bytes.push_back(bytes(*c, i, false));
    const auto count = elements(*out, "reduce_scatter");
    const MPI_Datatype type = mpi_type(out->dtype);
    const std::size_t chunk = byte_size(*out);
    const int ranks = getSize();
    const ScalarType dtype = out->dtype;
    auto scratch = std::make_shared<std::vector<unsigned char>>(chunk * ins.size());
    c->start = [=](MPI_Comm comm, MPI_Request* req) {
      for (std::size_t r = 0; r < in_bytes.size(); ++r)
        if (chunk) std::memcpy(scratch->data() + r * chunk, in_bytes[r], chunk);
      MPI_Ireduce_scatter_block(scratch->data(), recv, count, type, mpi, comm, req);
    };
    if (op == ReduceOp::AVG) c->finish = [=] { divide_in_place(recv, count, dtype, ranks); };
    return submit(std::move(c));
  }

  std::shared_ptr<Work> barrier(const BarrierOptions& opts) override {
    auto c = make(CollectiveKind::Barrier, Tensor(), ReduceOp::SUM, 0, opts.timeout);
    c->start = [](MPI_Comm comm, MPI_Request* req) { MPI_Ibarrier(comm, req); };
    return submit(std::move(c));
  }

 private:
  // The one tensor of a call (ProcessGroupMPI's rule), defined and dense.
  static trace::TensorRef single(const std::vector<Tensor>& tensors, const char* op) {
    if (tensors.size() != 1)
      throw ValueError(detail::cat("[", op, "] takes exactly one tensor per call, got ", tensors.size()));
    return checked(tensors[0], op);
  }

  static trace::TensorRef checked(const Tensor& t, const char* op) {
    const trace::TensorImpl& impl = frontend::unwrap(t, op);
    if (!impl.geo.is_contiguous())
      throw ValueError(detail::cat("[", op, "] tensors must be contiguous; got one of shape ", impl.geo.shape(),
                                   " and strides ", impl.geo.stride()));
    return const_cast<trace::TensorImpl&>(impl).shared_from_this();
  }

  // The getSize() tensors of allgather's output or reduce_scatter's input,
  // each shaped and typed as `like`.
  std::vector<trace::TensorRef> per_rank(const std::vector<std::vector<Tensor>>& lists, const trace::TensorImpl& like,
                                         const char* op, const char* name) const {
    if (lists.size() != 1 || lists[0].size() != static_cast<std::size_t>(getSize()))
      throw ValueError(detail::cat("[", op, "] ", name, " must hold one list of ", getSize(),
                                   " tensors (one per rank), got ", lists.size(), " lists",
                                   lists.empty() ? std::string() : detail::cat(", the first of ", lists[0].size())));
    std::vector<trace::TensorRef> refs;
    for (std::size_t r = 0; r < lists[0].size(); ++r) {
      trace::TensorRef t = checked(lists[0][r], op);
      if (t->dtype != like.dtype || !(t->geo.shape() == like.geo.shape()))
        throw ValueError(detail::cat("[", op, "] ", name, "[0][", r, "] is ", t->dtype, " ", t->geo.shape(),
                                     "; every tensor must be ", like.dtype, " ", like.geo.shape()));
      refs.push_back(std::move(t));
    }
    return refs;
  }

  static int elements(const trace::TensorImpl& t, const char* op) {
    const std::int64_t n = t.geo.numel();
    if (n > std::numeric_limits<int>::max())
      throw ValueError(detail::cat("[", op, "] ", n, " elements is more than one MPI call carries (",
                                   std::numeric_limits<int>::max(), ")"));
    return static_cast<int>(n);
  }

  std::unique_ptr<Collective> make(CollectiveKind kind, const Tensor& t, ReduceOp::RedOpType op, int root,
                                   std::chrono::milliseconds limit) {
    auto c = std::make_unique<Collective>();
    c->descriptor = describe(++seq_, kind, t, op, root);
    c->timeout = limit.count() > 0 ? limit : timeout();
    c->work = std::make_shared<WorkMPI>(to_string(c->descriptor));
    return c;
  }

  // Materializes `t` (the ops computing it run now, and for a write the ops
  // reading it too), pins it and returns its first byte.
  static void* bytes(Collective& c, const trace::TensorRef& t, bool write) {
    trace::materialize(*t, profiler::CutReason::Sync, write);
    c.pins.emplace_back(*t->storage);
    c.tensors.push_back(t);
    if (write) c.written.push_back(t);
    return static_cast<unsigned char*>(t->storage->data()) + t->geo.offset * element_size(t->dtype);
  }

  std::shared_ptr<Work> submit(std::unique_ptr<Collective> c) {
    std::shared_ptr<WorkMPI> work = c->work;
    for (const trace::TensorRef& t : c->tensors) trace::begin_external_access(*t->storage, work);
    comm_.enqueue(std::move(c));
    return work;
  }

  CommThread comm_;
  std::uint64_t seq_ = 0;
};

std::mutex g_group_mutex;
std::weak_ptr<ProcessGroupMPI> g_group;
bool g_finalized = false;

}  // namespace

std::shared_ptr<ProcessGroupMPI> ProcessGroupMPI::createProcessGroupMPI(std::vector<int> ranks) {
  if (!ranks.empty())
    throw ValueError(detail::cat("[createProcessGroupMPI] sub-groups are not supported; got ", ranks.size(),
                                 " ranks (pass none for the world)"));
  std::lock_guard lock(g_group_mutex);
  if (auto group = g_group.lock()) return group;
  if (g_finalized)
    throw DistributedError("[createProcessGroupMPI] MPI was finalized when the last process group was dropped; "
                           "it cannot be initialized twice in one process");
  std::shared_ptr<ProcessGroupMPI> group(new ProcessGroupMPIImpl, [](ProcessGroupMPI* g) {
    delete g;
    std::lock_guard relock(g_group_mutex);
    g_finalized = true;
  });
  g_group = group;
  return group;
}

}  // namespace kiln::distributed

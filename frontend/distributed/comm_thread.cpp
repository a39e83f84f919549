#include "frontend/distributed/comm_thread.h"

#include <future>

#include "frontend/distributed/abort_job.h"
#include "profiler/comm_counters.h"

namespace kiln::distributed {

namespace {

constexpr int kDescriptorTag = 0x6b64;  // point-to-point only: collectives do not match tags

// Open MPI progresses non-blocking collectives only inside MPI calls (a
// large all-reduce over shared memory needs a test per fragment), so for a
// while the thread only yields between tests: kSpinTime plus the payload's
// time at kSpinFloorBytesPerSecond. Past that it sleeps kPollInterval
// between tests, leaving the cores to kernels (and, on one machine, to the
// peer it waits for). Sleeping from the start made a 4-byte all-reduce take
// 0.4-0.6 ms and a 2.5 MiB one 10 ms at 2 processes; yielding, 0.02 ms and
// 2-3 ms (bench/scaleout_bench.cpp).
constexpr auto kSpinTime = std::chrono::milliseconds(5);
constexpr double kSpinFloorBytesPerSecond = 0.5e9;
constexpr auto kPollInterval = std::chrono::microseconds(20);

std::string ranks_list(const std::vector<int>& ranks) {
  std::string s;
  for (int r : ranks) s += detail::cat(s.empty() ? "" : ", ", r);
  return s;
}

// The communication counters of kiln::stats() (profiler/comm_counters.h).
void count(const Descriptor& d, std::chrono::steady_clock::duration took) {
  if (d.kind == CollectiveKind::Allreduce)
    profiler::record_allreduce(payload_bytes(d), std::chrono::duration_cast<std::chrono::nanoseconds>(took).count());
  else if (d.kind == CollectiveKind::Broadcast)
    profiler::record_broadcast(payload_bytes(d));
}

}  // namespace

CommThread::CommThread() {
  std::promise<void> started;
  std::future<void> ready = started.get_future();
  thread_ = std::thread([this, p = std::move(started)]() mutable {
    loop([&](std::exception_ptr error) {
      if (error) p.set_exception(error);
      else p.set_value();
    });
  });
  try {
    ready.get();
  } catch (...) {
    thread_.join();
    throw;
  }
}

CommThread::~CommThread() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void CommThread::enqueue(std::unique_ptr<Collective> c) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(c));
  }
  cv_.notify_all();
}

void CommThread::loop(std::function<void(std::exception_ptr)> started) {
  int provided = 0;
  // MULTIPLE, although only this thread communicates: a failing rank's
  // terminate handler calls MPI_Abort from whatever thread it runs on.
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    started(std::make_exception_ptr(DistributedError("[createProcessGroupMPI] MPI_Init_thread failed")));
    return;
  }
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    started(std::make_exception_ptr(DistributedError(detail::cat(
        "[createProcessGroupMPI] the MPI library gives thread level ", provided,
        "; kiln needs MPI_THREAD_SERIALIZED or more (its communication thread is not the main thread)"))));
    return;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  started(nullptr);
  for (;;) {
    std::unique_ptr<Collective> c;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) break;
      c = std::move(queue_.front());
      queue_.pop_front();
    }
    run(*c);
  }
  MPI_Finalize();
}

void CommThread::poll(std::vector<MPI_Request>& requests, const std::vector<int>& peer_of,
                      std::chrono::steady_clock::time_point deadline, const Collective& c, const char* what) {
  const auto spin_until = std::chrono::steady_clock::now() + kSpinTime +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(
                              static_cast<double>(payload_bytes(c.descriptor)) / kSpinFloorBytesPerSecond));
  for (;;) {
    int done = 0;
    MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return;
    if (std::chrono::steady_clock::now() >= deadline) {
      std::vector<int> silent;
      for (std::size_t i = 0; i < requests.size(); ++i)
        if (requests[i] != MPI_REQUEST_NULL && peer_of[i] >= 0) silent.push_back(peer_of[i]);
      const double seconds = std::chrono::duration<double>(c.timeout).count();
      abort_job(rank_, detail::cat(to_string(c.descriptor), " did not complete within ", seconds,
                                   " s (KILN_DIST_TIMEOUT) ", what,
                                   silent.empty() ? std::string("; every rank had sent its descriptor")
                                                  : "; ranks that did not answer: " + ranks_list(silent)));
    }
    if (std::chrono::steady_clock::now() < spin_until) std::this_thread::yield();
    else std::this_thread::sleep_for(kPollInterval);
  }
}

void CommThread::run(Collective& c) {
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + c.timeout;
  std::vector<Descriptor> all(static_cast<std::size_t>(size_));
  all[static_cast<std::size_t>(rank_)] = c.descriptor;
  std::vector<MPI_Request> requests;
  std::vector<int> peer_of;
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    requests.emplace_back();
    MPI_Irecv(&all[static_cast<std::size_t>(r)], sizeof(Descriptor), MPI_BYTE, r, kDescriptorTag, MPI_COMM_WORLD,
              &requests.back());
    peer_of.push_back(r);
    requests.emplace_back();
    MPI_Isend(&c.descriptor, sizeof(Descriptor), MPI_BYTE, r, kDescriptorTag, MPI_COMM_WORLD, &requests.back());
    peer_of.push_back(-1);
  }
  poll(requests, peer_of, deadline, c, "exchanging descriptors");

  std::exception_ptr error;
  if (std::string why = mismatch(all); !why.empty()) {
    error = std::make_exception_ptr(DistributedError(detail::cat("[", to_string(c.descriptor.kind), "] ", why)));
  } else {
    std::vector<MPI_Request> collective(1);
    c.start(MPI_COMM_WORLD, &collective[0]);
    poll(collective, {-1}, deadline, c, "in the collective itself");
    if (c.finish) c.finish();
  }
  if (error) {
    std::string message;
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      message = e.what();
    }
    for (const trace::TensorRef& t : c.written) t->storage->poison(message);
  }
  const auto took = std::chrono::steady_clock::now() - started;
  if (!error) count(c.descriptor, took);
  for (const trace::TensorRef& t : c.tensors) trace::end_external_access(*t->storage);
  c.pins.clear();
  c.work->complete(error, took);
}

}  // namespace kiln::distributed

#include "frontend/distributed/work_mpi.h"

namespace kiln::distributed {

bool WorkMPI::isCompleted() {
  std::lock_guard lock(mu_);
  return done_;
}

bool WorkMPI::isSuccess() const {
  std::lock_guard lock(mu_);
  return done_ && !error_;
}

void WorkMPI::wait() {
  std::unique_lock lock(mu_);
  done_cv_.wait(lock, [&] { return done_; });
}

bool WorkMPI::wait(std::chrono::milliseconds timeout) {
  if (timeout.count() < 0)
    throw ValueError(detail::cat("[Work::wait] timeout must be 0 (none) or positive, got ", timeout.count(), " ms"));
  if (timeout.count() == 0) {
    wait();
  } else {
    std::unique_lock lock(mu_);
    if (!done_cv_.wait_for(lock, timeout, [&] { return done_; }))
      throw DistributedError(detail::cat("[Work::wait] ", what_, " did not complete within ", timeout.count(),
                                         " ms; it goes on"));
  }
  if (std::exception_ptr error = exception()) std::rethrow_exception(error);
  return true;
}

std::exception_ptr WorkMPI::exception() const {
  std::lock_guard lock(mu_);
  return error_;
}

std::chrono::steady_clock::duration WorkMPI::run_time() const {
  std::lock_guard lock(mu_);
  return took_;
}

void WorkMPI::complete(std::exception_ptr error, std::chrono::steady_clock::duration took) {
  {
    std::lock_guard lock(mu_);
    error_ = std::move(error);
    took_ = took;
    done_ = true;
  }
  done_cv_.notify_all();
}

}  // namespace kiln::distributed

// WorkMPI: the Work of one collective. The communication thread completes
// it; the user's thread waits on it, and so does any access to the
// collective's tensors (it is their trace::ExternalAccess).
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>

#include <kiln/distributed.h>

#include "trace/external_access.h"

namespace kiln::distributed {

class WorkMPI final : public Work, public trace::ExternalAccess {
 public:
  /// `what`: the collective, for messages ("allreduce #3 of Float [4] (SUM)").
  explicit WorkMPI(std::string what) : what_(std::move(what)) {}

  bool isCompleted() override;
  bool isSuccess() const override;
  bool wait(std::chrono::milliseconds timeout) override;
  std::exception_ptr exception() const override;

  /// trace::ExternalAccess: waits for completion. A failure is not thrown
  /// here: the tensors it was to write are poisoned, so reading them throws.
  void wait() override;

  /// Called once, by the communication thread; `error` null on success,
  /// `took` the collective's time from its start on that thread.
  void complete(std::exception_ptr error, std::chrono::steady_clock::duration took);
  /// That time (zero until complete).
  std::chrono::steady_clock::duration run_time() const;

 private:
  const std::string what_;
  mutable std::mutex mu_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::exception_ptr error_;
  std::chrono::steady_clock::duration took_{};
};

}  // namespace kiln::distributed

// The threads behind a data loader with workers > 0: each job runs on one
// of them and is told which, so the loader can give every worker its own
// copy of the dataset (datasets need not be thread-safe).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln::data::detail {

class WorkerPool {
 public:
  using Job = std::function<void(std::size_t worker)>;

  explicit WorkerPool(std::size_t workers);
  /// Drops the jobs no worker has started and joins the workers.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Queues `job` for the next idle worker (jobs start in posting order).
  /// A job must not throw: the loader catches into the job's future.
  void post(Job job);

 private:
  void run(std::size_t worker);

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace kiln::data::detail

#include "jit/tier1/compile_queue.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include <kiln/error.h>
#include <kiln/settings.h>

#include "profiler/jit_counters.h"
#include "profiler/settings/settings.h"

namespace kiln::jit {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<std::int64_t>& timeout_ms() {
  static std::atomic<std::int64_t> ms{
      static_cast<std::int64_t>(profiler::settings::read_duration(profiler::settings::Id::CompileTimeout))};
  return ms;
}

struct Queued {
  std::uint64_t id;
  CompileJob job;
};

struct Running {
  std::uint64_t id;
  Clock::time_point start;
  std::shared_ptr<std::atomic<bool>> abandoned;
  std::function<void(std::chrono::milliseconds)> on_timeout;
};

// Everything under one mutex; leaked, so that its threads may outlive
// static destruction (they wait on its condition variables).
class Queue {
 public:
  static Queue& instance() {
    static Queue* q = new Queue;
    return *q;
  }

  std::uint64_t submit(CompileJob job) {
    std::lock_guard lock(mu_);
    const std::uint64_t id = ++last_id_;
    jobs_.push_back({id, std::move(job)});
    open_.insert(id);
    profiler::add_in_flight(1);
    profiler::add_queued(1);
    if (!started_) {
      started_ = true;
      std::thread([this] { watch(); }).detach();
      start_slot();
    }
    work_.notify_one();
    return id;
  }

  void wait_for(std::uint64_t id) {
    std::unique_lock lock(mu_);
    done_.wait(lock, [&] { return !open_.contains(id); });
  }

  void wait_idle() {
    std::unique_lock lock(mu_);
    done_.wait(lock, [&] { return open_.empty(); });
  }

  void wait_abandoned() {
    std::unique_lock lock(mu_);
    done_.wait(lock, [&] { return abandoned_running_ == 0; });
  }

 private:
  // Under mu_.
  void start_slot() {
    std::thread([this] { slot(); }).detach();
  }

  // Under mu_: moves the cold jobs to `dropped` and takes the hottest
  // compile, else the oldest background job.
  std::optional<Queued> take(std::vector<Queued>& dropped) {
    std::vector<Queued> kept;
    kept.reserve(jobs_.size());
    for (Queued& q : jobs_) (q.job.cold && q.job.cold() ? dropped : kept).push_back(std::move(q));
    jobs_ = std::move(kept);
    if (jobs_.empty()) return std::nullopt;
    std::size_t best = 0;
    double best_heat = -1;
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      const double heat = jobs_[i].job.heat ? jobs_[i].job.heat() : -1;
      if (heat > best_heat) {
        best = i;
        best_heat = heat;
      }
    }
    Queued q = std::move(jobs_[best]);
    jobs_.erase(jobs_.begin() + static_cast<std::ptrdiff_t>(best));
    return q;
  }

  void finish(std::uint64_t id) {
    open_.erase(id);
    profiler::add_in_flight(-1);
    done_.notify_all();
  }

  void slot() {
    std::unique_lock lock(mu_);
    for (;;) {
      work_.wait(lock, [&] { return !jobs_.empty(); });
      std::vector<Queued> dropped;
      std::optional<Queued> next = take(dropped);
      // A dropped job ends after its on_drop ran, so that whoever waits
      // for it sees the kernel back in the state a later run re-queues.
      if (!dropped.empty()) {
        lock.unlock();
        for (Queued& d : dropped)
          if (d.job.on_drop) d.job.on_drop();
        lock.lock();
      }
      for (Queued& d : dropped) {
        profiler::add_queued(-1);
        profiler::count(profiler::JitEvent::CompileDropped);
        finish(d.id);
      }
      if (!next) continue;
      profiler::add_queued(-1);
      const std::uint64_t id = next->id;
      auto abandoned = std::make_shared<std::atomic<bool>>(false);
      running_ = Running{id, Clock::now(), abandoned, next->job.on_timeout};
      watch_.notify_all();
      lock.unlock();
      next->job.run(*abandoned);
      next.reset();  // the job's captures go on this thread, outside the lock
      lock.lock();
      // Abandoned: the watchdog finished the job and gave the slot to a
      // fresh thread; this one bows out.
      if (abandoned->load()) {
        --abandoned_running_;
        done_.notify_all();
        return;
      }
      running_.reset();
      watch_.notify_all();
      finish(id);
    }
  }

  void watch() {
    std::unique_lock lock(mu_);
    for (;;) {
      watch_.wait(lock, [&] { return running_.has_value(); });
      const std::int64_t bound = timeout_ms().load(std::memory_order_relaxed);
      const std::uint64_t id = running_->id;
      if (bound <= 0) {
        watch_.wait(lock, [&] { return !running_ || running_->id != id; });
        continue;
      }
      const Clock::time_point deadline = running_->start + std::chrono::milliseconds(bound);
      if (watch_.wait_until(lock, deadline, [&] { return !running_ || running_->id != id; })) continue;
      Running stuck = std::move(*running_);
      running_.reset();
      stuck.abandoned->store(true);
      ++abandoned_running_;
      // The job ends, and the next starts, after on_timeout ran (as a
      // dropped job ends after on_drop): whoever waits for either sees the
      // timeout counted and the kernel back on tier 0.
      lock.unlock();
      profiler::count(profiler::JitEvent::CompileTimedOut);
      if (stuck.on_timeout) stuck.on_timeout(std::chrono::milliseconds(bound));
      lock.lock();
      finish(stuck.id);
      start_slot();
    }
  }

  std::mutex mu_;
  std::condition_variable work_, done_, watch_;
  std::vector<Queued> jobs_;
  std::unordered_set<std::uint64_t> open_;  // queued or running
  std::optional<Running> running_;
  std::uint64_t last_id_ = 0;
  std::size_t abandoned_running_ = 0;  // abandoned jobs whose run has not returned
  bool started_ = false;
};

}  // namespace

std::uint64_t submit_compile_job(CompileJob job) { return Queue::instance().submit(std::move(job)); }
void wait_for_compile_job(std::uint64_t id) { Queue::instance().wait_for(id); }
void wait_for_compile_queue() { Queue::instance().wait_idle(); }
void wait_for_abandoned_compile_jobs() { Queue::instance().wait_abandoned(); }

std::chrono::milliseconds compile_timeout() { return std::chrono::milliseconds(timeout_ms().load()); }
void set_compile_timeout(std::chrono::milliseconds bound) {
  if (bound.count() < 0)
    throw ValueError(detail::cat("[set_compile_timeout] the bound must be >= 0 ms, got ", bound.count()));
  timeout_ms().store(bound.count());
}

}  // namespace kiln::jit

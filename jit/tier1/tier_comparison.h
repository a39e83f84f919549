// TierComparison: whether a kernel's compiled code is slower than running
// its group op by op on tier 0, from the fastest timed run of each (the
// least disturbed measure of a tier), per element.
//
// Like is compared with like. The samples are of one kernel thread count:
// a change of kiln::set_num_threads starts the comparison again (a sum of
// 16M floats compiled on one thread, 2.2 ms, reads slower than tier 0 on
// two, 1.5 ms, though it is 2x faster than tier 0 at either count). And
// the compiled samples span kFeedbackSpanNs: a background compile (a GEMM
// tile, an O3 upgrade) takes one of two cores for tens of milliseconds; a
// 3 s loop of that sum on two threads had its kernel retired after its
// first 16 compiled runs in 1 of 9 runs, and `make bench` once ran it on
// tier 0 throughout.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace kiln::jit {

class TierComparison {
 public:
  /// Compiled runs (samples) before the tiers are compared.
  static constexpr std::uint32_t kFeedbackRuns = 16;
  /// Time from the first compiled sample before the tiers are compared.
  static constexpr std::int64_t kFeedbackSpanNs = 250'000'000;
  /// Compiled code slower than tier 0 by this factor is retired.
  static constexpr double kDemoteFactor = 1.25;

  /// A timed run of the group on tier 0, at `threads` kernel threads.
  void tier0(double ns_per_elem, int threads);
  /// A timed compiled run at `threads` kernel threads, at `now_ns`; true when
  /// the compiled code should be retired.
  bool compiled(double ns_per_elem, int threads, std::int64_t now_ns);
  /// "compiled X ns/element vs tier 0 Y at N threads", for the failure record.
  std::string describe() const;

 private:
  // Samples of another thread count are dropped first.
  void at_threads(int threads);

  std::atomic<int> threads_{0};
  std::atomic<double> t0_{0}, t1_{0};  // fastest ns per element; 0: none yet
  std::atomic<std::uint32_t> t1_runs_{0};
  std::atomic<std::int64_t> t1_first_ns_{0};
};

}  // namespace kiln::jit

// The profiler under concurrency (run under ThreadSanitizer by make
// test-tsan): per-thread counter blocks, cut sites, the event log and the
// timeline bumped from many threads while another thread takes snapshots,
// and threads that exit (their blocks folded into the retired totals).
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include <kiln/kiln.h>

#include "profiler/counters.h"
#include "profiler/cut_sites.h"
#include "profiler/events.h"
#include "profiler/timeline.h"

namespace kiln::profiler {
namespace {

TEST(ProfilerThreads, CountersFromManyThreadsSumExactlyWhileSnapshotsRun) {
  reset();
  constexpr int kThreads = 4, kRuns = 2000;
  constexpr std::uint64_t kKeys = 5;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done.load()) {
      const Stats s = snapshot();
      EXPECT_LE(s.segments_run, std::uint64_t{kThreads} * kRuns);
    }
  });
  std::latch start(kThreads);
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int i = 0; i < kRuns; ++i) {
        add_ops_recorded(2);
        const std::uint32_t site = note_cut(i % 2 ? CutReason::Item : CutReason::OpLimit);
        record_segment_run({.key = static_cast<std::uint64_t>(i) % kKeys, .reason = CutReason::Item, .site = site,
                            .ops_run = 2, .start_ns = i, .nanoseconds = 10, .intermediate_bytes = 8,
                            .compiled = (i + t) % 3 == 0});
        if (i % 500 == 0) log_event({.kind = EventKind::Swapped, .key = static_cast<std::uint64_t>(t)});
      }
    });
  }
  for (auto& w : writers) w.join();  // the writers' blocks are retired now
  done.store(true);
  reader.join();

  const Stats s = snapshot();
  constexpr std::uint64_t kTotal = std::uint64_t{kThreads} * kRuns;
  EXPECT_EQ(s.ops_recorded, 2 * kTotal);
  EXPECT_EQ(s.segments_run, kTotal);
  EXPECT_EQ(s.intermediate_bytes, 8 * kTotal);
  EXPECT_EQ(s.distinct_keys, kKeys);
  std::uint64_t runs = 0, tier1 = 0, bytes = 0;
  for (const KeyStats& k : s.top_keys) {
    runs += k.runs;
    tier1 += k.runs_tier1;
    bytes += k.bytes;
    EXPECT_EQ(k.runs, kTotal / kKeys);
  }
  EXPECT_EQ(runs, kTotal);
  EXPECT_EQ(bytes, 8 * kTotal);
  EXPECT_GT(tier1, 0u);
  std::uint64_t cuts = 0;
  for (const CutSiteStats& c : s.cut_sites) cuts += c.count;
  EXPECT_EQ(cuts, kTotal);
  int swaps = 0;
  for (const EventStats& e : s.recent_events) swaps += std::string(e.kind) == "swapped";
  EXPECT_EQ(swaps, kThreads * (kRuns / 500));
}

TEST(ProfilerThreads, ThreadsRecordingTensorsWriteOneTimeline) {
  const auto path = std::filesystem::temp_directory_path() / ("kiln_threads_timeline_" + std::to_string(getpid()) + ".json");
  ASSERT_TRUE(open_timeline(path.string()));
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([t] {
      kiln::Tensor x = kiln::full({16}, static_cast<float>(t));
      for (int i = 0; i < 20; ++i) EXPECT_EQ((x + 1.f).sum().item<float>(), 16.f * static_cast<float>(t + 1));
    });
  }
  for (auto& t : threads) t.join();
  close_timeline();
  EXPECT_GT(std::filesystem::file_size(path), 0u);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kiln::profiler

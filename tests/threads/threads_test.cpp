// Threads: each records into its own trace buffer; tensors may be handed
// between threads while pending, written in place by one thread and read by
// another after a synchronization, and outlive the thread that recorded
// them. Every test is deterministic (explicit latches/promises) and small,
// since CI runs this suite under ThreadSanitizer.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <future>
#include <latch>
#include <thread>
#include <vector>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;

std::size_t reason(const char* name) {
  for (std::size_t i = 0; i < kiln::kNumCutReasons; ++i)
    if (std::strcmp(kiln::Stats::reason_name(i), name) == 0) return i;
  ADD_FAILURE() << "no cut reason " << name;
  return 0;
}

TEST(Threads, EachThreadRecordsAndReadsItsOwnTensors) {
  constexpr int kThreads = 4, kIters = 20;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> ts;
  for (int id = 0; id < kThreads; ++id) {
    ts.emplace_back([id, &wrong] {
      for (int i = 0; i < kIters; ++i) {
        Tensor x = kiln::arange(16, kiln::kFloat32) * (id + 1);  // sum 120 * (id + 1)
        Tensor y = (x + i).sum();
        if (y.item<float>() != 120.0f * (id + 1) + 16.0f * i) ++wrong[id];
      }
    });
  }
  for (auto& t : ts) t.join();
  for (int id = 0; id < kThreads; ++id) EXPECT_EQ(wrong[id], 0) << "thread " << id;
}

TEST(Threads, PendingTensorFromAnotherThreadReadsCorrectly) {
  std::promise<Tensor> made;
  std::latch read_done(1);
  std::thread producer([&] {
    Tensor t = kiln::arange(100, kiln::kFloat64) * 2;  // pending on this thread
    made.set_value(t);
    read_done.wait();  // stay alive with the op still in this thread's buffer
  });
  Tensor t = made.get_future().get();
  EXPECT_EQ(t.sum().item<double>(), 9900.0);
  read_done.count_down();
  producer.join();
}

TEST(Threads, TensorRecordedOnMainIsUsedAndReadOnAWorker) {
  Tensor a = kiln::ones({8}) * 3;  // pending on the main thread
  double got = 0;
  std::thread worker([&] { got = (a + 1).sum().item<double>(); });
  worker.join();
  EXPECT_EQ(got, 32.0);
  EXPECT_EQ(a.sum().item<float>(), 24.0f);
}

TEST(Threads, InPlaceWriteOnOneThreadIsSeenAfterAJoin) {
  Tensor shared = kiln::zeros({10}) + 1;  // pending on main
  Tensor before = shared * 10;            // pending reader of the old value, on main
  std::thread writer([&] { shared.add_(5); });
  writer.join();
  EXPECT_EQ(shared.to_vector<float>(), std::vector<float>(10, 6.0f));
  EXPECT_EQ(before.to_vector<float>(), std::vector<float>(10, 10.0f));
}

TEST(Threads, InPlaceWriteSignalledByAPromiseWhileTheWriterStaysAlive) {
  Tensor shared = kiln::arange(6, kiln::kInt64).reshape({2, 3});
  std::promise<void> written;
  std::latch may_exit(1);
  std::thread writer([&] {
    shared.select(0, 1).mul_(10);  // pending in the writer's buffer
    written.set_value();
    may_exit.wait();
  });
  written.get_future().wait();
  EXPECT_EQ(shared.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 30, 40, 50}));
  may_exit.count_down();
  writer.join();
}

TEST(Threads, ThreadExitingWithPendingOpsLeavesCorrectResults) {
  kiln::reset_stats();
  Tensor result;
  std::thread worker([&] {
    Tensor x = kiln::full({4}, 2.5);
    result = (x * x).sum();  // never read on this thread
  });
  worker.join();
  EXPECT_EQ(result.item<float>(), 25.0f);
  EXPECT_GE(kiln::stats().segments_by_reason[reason("thread_exit")] +
                kiln::stats().segments_by_reason[reason("cross_thread")],
            1u);
}

TEST(Threads, ManyThreadsExitWithPendingWorkReadAfterJoin) {
  constexpr int kThreads = 6;
  std::vector<Tensor> results(kThreads);
  std::vector<std::thread> ts;
  for (int id = 0; id < kThreads; ++id)
    ts.emplace_back([id, &results] { results[id] = kiln::arange(10, kiln::kInt64).mul(id).sum(); });
  for (auto& t : ts) t.join();
  for (int id = 0; id < kThreads; ++id) EXPECT_EQ(results[id].item<std::int64_t>(), 45 * id) << "thread " << id;
}

TEST(Threads, ConcurrentSyncWhileOthersRecord) {
  constexpr int kThreads = 4, kIters = 15;
  std::latch start(kThreads);
  std::atomic<int> wrong{0};
  std::vector<std::thread> ts;
  for (int id = 0; id < kThreads; ++id) {
    ts.emplace_back([&, id] {
      start.arrive_and_wait();
      Tensor acc = kiln::zeros({32});
      for (int i = 0; i < kIters; ++i) {
        acc.add_(1);
        if (i % 3 == id % 3) kiln::sync();
      }
      kiln::sync();
      if (acc.sum().item<float>() != 32.0f * kIters) ++wrong;
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Threads, TwoThreadsReadOnePendingTensorAtOnce) {
  Tensor t = kiln::arange(1000, kiln::kFloat64).reshape({10, 100}).sum({1});  // pending on main
  std::latch start(2);
  double s0 = 0, s1 = 0;
  std::thread a([&] {
    start.arrive_and_wait();
    s0 = t.sum().item<double>();
  });
  std::thread b([&] {
    start.arrive_and_wait();
    s1 = t.select(0, 9).item<double>();
  });
  a.join();
  b.join();
  EXPECT_EQ(s0, 499500.0);
  EXPECT_EQ(s1, 94950.0);  // 900 + ... + 999
}

TEST(Threads, ViewWrittenOnAWorkerIsSeenThroughTheBaseOnMain) {
  Tensor base = kiln::zeros({4, 4}, kiln::kInt32);
  Tensor diag_block = base.slice(0, 1, 3).slice(1, 1, 3);  // a view made on main
  std::thread worker([&] {
    diag_block.fill_(7);
    base.t().select(0, 0).add_(1);  // column 0
  });
  worker.join();
  std::vector<std::int32_t> want = {1, 0, 0, 0, 1, 7, 7, 0, 1, 7, 7, 0, 1, 0, 0, 0};
  EXPECT_EQ(base.to_vector<std::int32_t>(), want);
}

TEST(Threads, ChainOfHandoffsAcrossThreads) {
  // t is extended on three threads in turn, each leaving its op pending.
  Tensor t = kiln::ones({5});
  for (int hop = 0; hop < 3; ++hop) {
    std::thread th([&t, hop] { t = t * 2 + hop; });
    th.join();
  }
  // ((1*2+0)*2+1)*2+2 = 12
  EXPECT_EQ(t.to_vector<float>(), std::vector<float>(5, 12.0f));
}

TEST(Threads, ConcurrentRandomNumbersStayInRange) {
  constexpr int kThreads = 3;
  std::vector<std::vector<float>> out(kThreads);
  std::vector<std::thread> ts;
  for (int id = 0; id < kThreads; ++id) ts.emplace_back([id, &out] { out[id] = kiln::rand({256}).to_vector<float>(); });
  for (auto& t : ts) t.join();
  for (auto& v : out) {
    ASSERT_EQ(v.size(), 256u);
    for (float x : v) {
      EXPECT_GE(x, 0.0f);
      EXPECT_LT(x, 1.0f);
    }
  }
  EXPECT_NE(out[0], out[1]) << "two threads drew the same stream";
}

}  // namespace

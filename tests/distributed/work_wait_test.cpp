// Work::wait(timeout) as c10d's: 0 waits as long as it takes, a positive
// timeout throws when the collective has not finished by then and leaves
// it running, a negative one is rejected.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include <kiln/c10d.h>
#include <kiln/torch.h>

namespace {

using std::chrono::milliseconds;

TEST(WorkWait, ATimeoutThrowsWhileAPeerIsLateAndTheCollectiveGoesOn) {
  auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
  std::vector<torch::Tensor> t{torch::full({3}, static_cast<double>(pg->getRank() + 1))};
  if (pg->getRank() != 0) std::this_thread::sleep_for(milliseconds(300));  // rank 0's collective cannot finish
  auto work = pg->allreduce(t);
  if (pg->getRank() == 0) {
    try {
      work->wait(milliseconds(20));
      FAIL() << "the wait returned before the other ranks joined";
    } catch (const c10d::DistributedError& e) {
      EXPECT_NE(std::string(e.what()).find("[Work::wait] allreduce #"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("of Float [3] (SUM) did not complete within 20 ms; it goes on"),
                std::string::npos)
          << e.what();
    }
    EXPECT_FALSE(work->isCompleted());
  }
  EXPECT_TRUE(work->wait());  // 0: no bound
  const double n = pg->getSize();
  for (float v : t[0].to_vector<float>()) EXPECT_EQ(v, n * (n + 1) / 2);
  EXPECT_TRUE(work->wait(milliseconds(10)));  // finished: returns at once
}

TEST(WorkWait, ANegativeTimeoutIsRejected) {
  auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
  auto work = pg->barrier();
  try {
    work->wait(milliseconds(-5));
    FAIL();
  } catch (const kiln::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("timeout must be 0 (none) or positive, got -5 ms"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(work->wait());
}

}  // namespace

// The distributed suite runs under mpirun (tests/CMakeLists.txt), every rank
// running every test: the process group is made once (MPI is initialized
// once per process) and dropped, finalizing MPI, before exit. A test that
// fails on any rank fails the job.
#include <gtest/gtest.h>

#include <kiln/distributed.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  auto group = kiln::distributed::ProcessGroupMPI::createProcessGroupMPI();
  if (group->getRank() != 0) {
    // One rank's report is enough when all agree; failures print on every rank.
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int failed = RUN_ALL_TESTS();
  group.reset();
  return failed;
}

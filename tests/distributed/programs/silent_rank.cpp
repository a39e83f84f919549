// Rank 1 stops answering (sleeps past the timeout without issuing the
// collective); the others must end the job within KILN_DIST_TIMEOUT, naming
// the collective and rank 1.
#include <chrono>
#include <thread>

#include <kiln/distributed.h>
#include <kiln/kiln.h>

int main() {
  auto pg = kiln::distributed::ProcessGroupMPI::createProcessGroupMPI();
  pg->barrier()->wait();
  if (pg->getRank() == 1) std::this_thread::sleep_for(std::chrono::seconds(60));
  std::vector<kiln::Tensor> t{kiln::ones({4})};
  pg->allreduce(t)->wait();
  return 0;
}

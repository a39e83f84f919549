// Rank 1 throws after the first collective; the others enter an allreduce
// that rank 1 never joins. The job must end on every rank at once (long
// before KILN_DIST_TIMEOUT), with rank 1 named.
#include <stdexcept>

#include <kiln/distributed.h>
#include <kiln/kiln.h>

int main() {
  auto pg = kiln::distributed::ProcessGroupMPI::createProcessGroupMPI();
  pg->barrier()->wait();
  if (pg->getRank() == 1) throw std::runtime_error("a failure on purpose");
  std::vector<kiln::Tensor> t{kiln::ones({4})};
  pg->allreduce(t)->wait();
  return 0;
}

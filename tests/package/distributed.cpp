// Consumer of kiln::distributed: the c10d names through the installed
// package. Built by tests/package/run.sh, not run (that needs mpirun).
#include <kiln/c10d.h>
#include <kiln/kiln.h>

#include <cstdio>
#include <vector>

int main() {
  auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
  std::vector<kiln::Tensor> t{kiln::ones({4})};
  pg->allreduce(t)->wait();
  std::printf("rank %d of %d: %g\n", pg->getRank(), pg->getSize(), t[0].sum().item<double>());
  return 0;
}

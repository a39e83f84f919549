#include "frontend/distributed/abort_job.h"

#include <cstdio>
#include <cstdlib>
#include <exception>

#include <mpi.h>

namespace kiln::distributed {

namespace {
int g_rank = -1;

[[noreturn]] void on_terminate() {
  std::string why = "std::terminate was called";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      why = std::string("uncaught exception: ") + ex.what();
    } catch (...) {
      why = "uncaught exception of a type not derived from std::exception";
    }
  }
  abort_job(g_rank, why);
}
}  // namespace

void abort_job(int rank, const std::string& why) {
  std::fprintf(stderr, "[distributed] rank %d: %s; ending the job on every rank\n", rank, why.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // MPI_Abort does not return; if it did, the process still must not go on
}

void abort_job_on_terminate(int rank) {
  g_rank = rank;
  std::set_terminate(on_terminate);
}

}  // namespace kiln::distributed

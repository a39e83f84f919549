// Ending the whole MPI job from one rank: a rank that fails must not leave
// the others waiting in a collective.
#pragma once

#include <string>

namespace kiln::distributed {

/// Prints "[distributed] rank R: <why>; ending the job on every rank" to
/// stderr and calls MPI_Abort on the world. Never returns.
[[noreturn]] void abort_job(int rank, const std::string& why);

/// Installs a std::terminate handler that ends the job with the uncaught
/// exception's message (once per process; the previous handler is dropped).
void abort_job_on_terminate(int rank);

}  // namespace kiln::distributed

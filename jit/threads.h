// The number of threads kernels run on (TBB's main arena). Read from
// KILN_NUM_THREADS once, at first use; default: the cores this process may
// run on. Compilation has its own arena and is not counted here.
#pragma once

#include <memory>

#include <tbb/task_arena.h>

namespace kiln::jit {

/// Limits kernel threads to `n` for the whole process. Throws
/// kiln::ValueError for n < 1.
void set_num_threads(int n);

/// The current limit.
int num_threads();

/// The arena kernels run their parallel loops in (num_threads() slots).
std::shared_ptr<tbb::task_arena> kernel_arena();

}  // namespace kiln::jit

// The number of threads kernels run on (TBB's main arena). Read from
// KILN_NUM_THREADS once, at first use; default: the cores this process may
// run on. Compilation has its own arena and is not counted here.
#pragma once

namespace kiln::jit {

/// Limits kernel threads to `n` for the whole process. Throws
/// kiln::ValueError for n < 1.
void set_num_threads(int n);

/// The current limit.
int num_threads();

}  // namespace kiln::jit

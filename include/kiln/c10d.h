// The one-line port of LibTorch's c10d: `c10d::ProcessGroupMPI`,
// `c10d::AllreduceOptions`, `c10d::ReduceOp::SUM`, ... name kiln::distributed.
#pragma once

#include <kiln/distributed.h>

namespace c10d = kiln::distributed;

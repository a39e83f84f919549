// The interface through which trace/ asks a higher layer (jit/) to run a
// segment. trace/ never includes jit/: jit registers itself here.
#pragma once

#include <exception>
#include <vector>

#include "trace/segment.h"

namespace kiln::trace {

/// Thrown by Executor::run when some nodes failed (an exhausted memory
/// budget, an index out of range): `failed_values` could not be computed --
/// the failing nodes' outputs and everything that depends on them -- while
/// every other value of the segment was. The trace poisons just those and
/// rethrows `error` to the user.
struct SegmentFailure {
  std::exception_ptr error;
  std::vector<std::uint32_t> failed_values;
};

class Executor {
 public:
  virtual ~Executor() = default;
  /// Runs every needed node of `segment`, writing the storages of its live
  /// values. Throws SegmentFailure when nodes fail; any other exception
  /// means nothing it was to write can be trusted.
  virtual void run(Segment& segment) = 0;
};

void set_executor(Executor* executor);
Executor& executor();

}  // namespace kiln::trace

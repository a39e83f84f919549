// The interface through which trace/ asks a higher layer (jit/) to run a
// segment. trace/ never includes jit/: jit registers itself here.
#pragma once

#include "trace/segment.h"

namespace kiln::trace {

class Executor {
 public:
  virtual ~Executor() = default;
  /// Runs every needed node of `segment`, writing the storages of its live
  /// values. May throw (e.g. kiln::OutOfMemory); the caller poisons outputs.
  virtual void run(Segment& segment) = 0;
};

void set_executor(Executor* executor);
Executor& executor();

}  // namespace kiln::trace

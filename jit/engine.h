// The execution engine: runs the segments the trace layer cuts.
//
// Tier 0 (this milestone) interprets a segment node by node with the
// reference kernels of jit/kernels/: it skips nodes no live value depends
// on, allocates each intermediate at its first write and returns its memory
// right after its last use, and resolves aliasing between in-place outputs
// and their inputs (bound_node.h). Each run is recorded in the profiler.
#pragma once

#include "trace/executor.h"

namespace kiln::jit {

class Engine : public trace::Executor {
 public:
  Engine();
  /// Runs every needed node of `segment`. Kernel errors (an index out of
  /// range, an exhausted memory budget) propagate after the intermediates'
  /// memory is returned; the caller poisons the segment's outputs.
  void run(trace::Segment& segment) override;
};

/// The process-wide engine.
trace::Executor& engine();

}  // namespace kiln::jit

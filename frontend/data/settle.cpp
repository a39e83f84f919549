#include <kiln/data/detail/settle.h>

#include "frontend/handle.h"
#include "profiler/counters.h"
#include "trace/record.h"

namespace kiln::data::detail {

void settle(const Tensor& t) {
  if (!t.defined()) return;
  // Counted as a sync: the loader asks for the values the way kiln::sync() would.
  trace::materialize(frontend::unwrap(t, "data loader"), profiler::CutReason::Sync, false);
}

}  // namespace kiln::data::detail

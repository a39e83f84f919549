// Segment: the ops cut from a trace buffer at a materialization point, with
// the storages they touch. The unit the engine runs and the JIT compiles.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "profiler/counters.h"
#include "trace/node.h"
#include "trace/storage.h"

namespace kiln::trace {

/// Whether `out` covers the whole of `storage`: a contiguous view from its start.
inline bool writes_whole(const Operand& out, const Storage& storage) {
  const std::size_t bytes = static_cast<std::size_t>(out.geo.numel()) * element_size(out.dtype);
  return out.geo.offset == 0 && out.geo.is_contiguous() && bytes == storage.nbytes();
}

struct Value {
  std::shared_ptr<Storage> storage;
  bool produced = false;  // created by this segment (not materialized before it)
  bool live = false;      // still held by a handle when cut: an output of the segment
};

struct Segment {
  std::vector<Node> nodes;
  std::vector<Value> values;
  std::uint64_t key = 0;  // xxh3 of the canonical ops, the input signature and the output set
  profiler::CutReason reason = profiler::CutReason::Sync;
  std::uint32_t site = 0;  // the user's code that cut it (profiler/cut_sites.h)
};

}  // namespace kiln::trace

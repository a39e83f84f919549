// TraceBuffer: the ops a thread has recorded and not yet run.
//
// Each thread records into its own buffer. A buffer is cut into a Segment
// and handed to the executor at a materialization point, when it reaches
// its op limit, or when another thread needs a storage it writes. The
// segment key is updated as ops are appended, so a cut hashes only the
// output set.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "profiler/counters.h"
#include "trace/node.h"
#include "trace/segment.h"
#include "trace/tensor_impl.h"

namespace kiln::trace {

class TraceBuffer {
 public:
  /// The calling thread's buffer (created on first use, flushed at thread exit).
  static TraceBuffer& current();

  TraceBuffer();
  ~TraceBuffer();
  TraceBuffer(const TraceBuffer&) = delete;
  TraceBuffer& operator=(const TraceBuffer&) = delete;

  /// Appends `node`. `inputs[k]` is the storage of tensor operand k (null for
  /// scalars); `out` the storage written (`fresh_out`: made for this node). Fills the operands' value indices.
  /// Flushes other threads' buffers first where they write these storages
  /// (or read the one written here), and flushes this one at its op limit.
  void append(Node& node, const std::shared_ptr<Storage>* const* inputs, const std::shared_ptr<Storage>& out,
              bool fresh_out);

  /// Runs the pending ops (no-op when empty). With `capture`, a copy of the
  /// segment as it ran (kiln::compile keeps it to replay the call).
  void flush(profiler::CutReason why, Segment* capture = nullptr);
  /// Segments cut from this buffer so far.
  std::uint64_t cuts();
  bool empty();

 private:
  std::uint32_t slot_of(const std::shared_ptr<Storage>& s, bool fresh);
  bool holds(const Storage* s);
  void flush_locked(profiler::CutReason why, Segment* capture = nullptr);
  void hash_node(const Node& node);

  std::mutex mu_;
  std::uint32_t serial_;
  std::vector<Node> nodes_;
  std::vector<Value> values_;
  std::uint64_t key_;
  std::uint64_t cuts_ = 0;
};

/// Runs `seg` on the executor. When it fails, the storages it could not
/// write are poisoned (reading them rethrows the message) and the error
/// propagates.
void run_segment(Segment& seg);

/// Makes `s` safe to access from the calling thread: flushes the buffer that
/// writes it, and for a write (`for_write`) also every buffer that reads it.
void prepare_access(Storage& s, bool for_write, profiler::CutReason why);

/// Flushes the calling thread's buffer and every other thread's (kiln::sync()).
void flush_all(profiler::CutReason why);

/// Ops per segment before a forced cut (KILN_TRACE_LIMIT, default 4096).
void set_trace_limit(std::int64_t ops);
std::int64_t trace_limit();

}  // namespace kiln::trace

// Which nodes of a segment run, and when each intermediate's memory can go.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/segment.h"

namespace kiln::jit {

struct SegmentPlan {
  /// Per node: does any live value depend on it? Nodes that are not needed
  /// never run, and their outputs are never allocated.
  std::vector<bool> needed;
  /// (node, value): after `node` runs, the intermediate `value` (produced
  /// here, not live) is read and written by no later needed node, so its
  /// memory goes back to the pool. Sorted by node.
  struct Release {
    std::uint32_t node;
    std::uint32_t value;
  };
  std::vector<Release> releases;
  /// Per needed node: bit k set if input k is an intermediate that no later
  /// needed node reads, so that its memory is free once the node has read
  /// it (the output may take it: jit/bound_node.h).
  std::vector<std::uint8_t> dying;
  std::uint32_t ops_run = 0;
  std::uint32_t ops_eliminated = 0;
};

/// Dead-op elimination and intermediate lifetimes. A value is needed if it
/// is live or a needed node reads it; a node is needed if it writes a
/// needed value. Walking backwards, a value written by several nodes (an
/// in-place chain) keeps every writer before its last needed use.
SegmentPlan plan_segment(const trace::Segment& segment);

/// True for a value whose memory the engine owns for the run: made by this
/// segment and held by no handle.
inline bool is_intermediate(const trace::Value& v) { return v.produced && !v.live; }

}  // namespace kiln::jit

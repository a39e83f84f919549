// Shape families: segments that are the same ops on the same kinds of
// operands and differ only in sizes (the last, smaller batch; a sequence
// length that varies). Each size is its own segment key and would never get
// hot alone; the family does. A hot family's segments are compiled with
// run-time sizes (KernelSpec::dynamic_dims), so one kernel serves every
// size instead of one compile per size.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "trace/segment.h"

namespace kiln::jit {

class ShapeFamily {
 public:
  std::atomic<std::int64_t> runs{0};
  std::atomic<std::int64_t> t0_ns{0};

  /// Records that `key` belongs to the family; true once it has been seen
  /// with at least two different keys (sizes really do vary).
  bool note(std::uint64_t key);

 private:
  std::mutex mu_;
  std::vector<std::uint64_t> keys_;  // a few distinct members; two are enough to decide
};

/// The family key of `segment`: its key with every size and stride left out
/// (ops, dtypes, attributes, wiring, dims, which dims broadcast, the output set).
std::uint64_t family_key(const trace::Segment& segment);
/// The family of `segment`.
std::shared_ptr<ShapeFamily> family_of(const trace::Segment& segment);

}  // namespace kiln::jit

// The message of kiln::OutOfMemory: what was asked, why it failed, and what
// holds memory, so the user can tell which tensors to free or how far to
// raise the budget.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::memory {

struct MemorySnapshot {
  std::uint64_t peak_bytes = 0;
  std::uint64_t pooled_bytes = 0;
  struct Class {
    std::size_t block_bytes;
    std::uint64_t live_blocks;
  };
  std::vector<Class> live_by_class;  // classes with live blocks, any order
};

/// "[memory] cannot allocate <request>: <cause> (peak .., pooled ..); live
/// blocks by size: 15 x 4.00 MiB, ..." listing the 8 classes holding the most
/// bytes, largest first.
std::string oom_report(std::size_t request, std::size_t capacity, std::string_view cause,
                       MemorySnapshot snapshot);

}  // namespace kiln::memory

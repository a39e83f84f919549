// Blocks above the small size classes, carved from large mappings.
//
// A size-class pool keeps each released block for its own class only: a
// training step that frees its forward activations (1 and 2 MiB) and then
// allocates gradients and optimizer state (512 KiB) takes fresh memory while
// the activations' blocks sit idle, and the process's footprint becomes the
// sum of every class's peak instead of the peak of live bytes. Here a released
// block merges with its free neighbours and any later request of that size or
// less is cut from it, so the footprint follows the live peak.
//
// Segments are mappings of 16 MiB or more, 2 MiB aligned; a page of a
// segment is touched (and counted by the OS) only once a block on it is
// written, so the untouched rest of a segment costs nothing. Small segments
// fragment: on the bench's residual stack (memory_bench, one training step,
// plain best fit), segments of 2, 8, 16 and 32 MiB gave peak RSS growths of
// 77, 64, 63.6 and 62.5 MiB against 53.4 MiB of live peak (size-class pools:
// 82 MiB). When a
// block of 2 MiB or more gets a new segment, its whole 2 MiB pages are
// advised for transparent huge pages.
//
// Each block starts with a 64-byte header (its neighbours in the segment and
// its free-list links), so payloads stay 64-byte aligned. Free blocks sit in
// bins by size class (kiln::memory::class_index). A request takes, among the
// free blocks that fit, the one it would write the fewest never-written
// bytes of, then the smallest: a page once written counts for the OS until
// trim(), so reusing it is free and a clean one adds to the footprint (the
// same step: 61.9 MiB of peak RSS growth against 63.6 MiB for plain best
// fit). The bins are scanned upwards and the scan stops at the first bin
// holding a fit that writes nothing new. Requests are exact multiples of
// 64 bytes and every cut leaves the rest as a free block, so a block's
// capacity is its request.
//
// Not thread safe by itself: the allocator serializes calls (allocator.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "memory/size_class.h"

namespace kiln::memory {

class SegmentHeap {
 public:
  static constexpr std::size_t kHeaderBytes = 64;
  static constexpr std::size_t kSegmentStep = std::size_t{2} << 20;
  static constexpr std::size_t kMinSegment = std::size_t{16} << 20;

  /// A free block of at least `bytes` (a multiple of 64), cut to exactly that;
  /// nullptr when no free block fits (then grow() maps one).
  void* take(std::size_t bytes) noexcept;

  /// Maps a new segment that fits `bytes` and takes the block from it;
  /// nullptr when the system refuses the mapping.
  void* grow(std::size_t bytes) noexcept;

  /// Frees a block from take() or grow(), merging it with free neighbours.
  void give_back(void* ptr) noexcept;

  /// The capacity of a live block from take() or grow().
  static std::size_t capacity(const void* ptr) noexcept;

  /// Unmaps segments with no live block and hands the pages of other large
  /// free blocks back to the system (they stay mapped, and are zero when
  /// next touched), the largest blocks first, until at least `wanted` kept
  /// bytes went or none are left; returns the kept bytes that went.
  std::uint64_t trim(std::uint64_t wanted = UINT64_MAX) noexcept;

  /// Free bytes that may hold memory: neither never written nor returned by trim().
  std::uint64_t kept_bytes() const noexcept { return free_bytes_ - clean_bytes_; }

  struct Header;  // segment_heap.cpp

 private:
  static constexpr std::size_t kBins = kNumClasses;
  static constexpr std::size_t kWords = (kBins + 63) / 64;

  void link(Header* block) noexcept;
  void unlink(Header* block) noexcept;
  void* cut(Header* block, std::size_t bytes) noexcept;
  std::size_t smallest_bin_from(std::size_t bin) const noexcept;

  std::array<Header*, kBins> bins_{};
  std::array<std::uint64_t, kWords> nonempty_{};  // bit b: bins_[b] has a block
  std::uint64_t free_bytes_ = 0;                  // payload bytes of free blocks
  std::uint64_t clean_bytes_ = 0;                 // ... of which at their ends hold no memory
};

}  // namespace kiln::memory

#include "memory/segment_heap.h"

#include <algorithm>
#include <bit>
#include <new>

#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace kiln::memory {

struct alignas(64) SegmentHeap::Header {
  Header* before = nullptr;  // the block just below in the segment; nullptr: the first
  Header* after = nullptr;   // the block just above; nullptr: the last
  Header* prev_free = nullptr;
  Header* next_free = nullptr;
  std::size_t bytes = 0;  // payload, a multiple of 64
  std::size_t clean = 0;  // free: payload bytes at its end known to hold no memory (never written, or returned)
  bool free = false;
};
static_assert(sizeof(SegmentHeap::Header) == SegmentHeap::kHeaderBytes);

namespace {

using Header = SegmentHeap::Header;

// The blocks of one bin looked at for a fit (a bin is LIFO: the most
// recently freed first).
constexpr int kFitLookLimit = 32;
// trim() returns the pages of free blocks of this size or more.
constexpr std::size_t kReturnPagesFrom = std::size_t{64} << 10;

char* payload(Header* block) noexcept { return reinterpret_cast<char*>(block) + SegmentHeap::kHeaderBytes; }

Header* header_of(const void* ptr) noexcept {
  return reinterpret_cast<Header*>(const_cast<char*>(static_cast<const char*>(ptr)) - SegmentHeap::kHeaderBytes);
}

std::uintptr_t align_up(std::uintptr_t v, std::size_t a) noexcept { return (v + a - 1) / a * a; }
std::uintptr_t align_down(std::uintptr_t v, std::size_t a) noexcept { return v / a * a; }

// Under AddressSanitizer a free payload is poisoned, so a kernel writing into
// a released buffer is reported instead of corrupting the next owner; headers
// stay readable, since neighbours update them.
void set_free(void* from, std::size_t bytes, bool free) noexcept {
#if defined(__SANITIZE_ADDRESS__)
  if (free) {
    ASAN_POISON_MEMORY_REGION(from, bytes);
  } else {
    ASAN_UNPOISON_MEMORY_REGION(from, bytes);
  }
#else
  (void)from, (void)bytes, (void)free;
#endif
}

// A free block of no payload (a header between two cuts) waits in no bin
// for a neighbour to merge with.
bool binned(const Header* block) noexcept { return block->bytes >= SegmentHeap::kHeaderBytes; }

// The bin of a free block: the largest class it covers whole.
std::size_t bin_of(std::size_t bytes) noexcept {
  const std::size_t index = class_index(bytes);
  return class_bytes(index) > bytes ? index - 1 : index;
}

// Large tensors are streamed: one TLB entry per 2 MiB instead of 512 (a
// 64 MiB float sum on one thread of the 2-core AVX2 EPYC: 5.4-6.0 ms on
// 4 KiB pages, 4.3-4.4 ms on huge pages). Only whole 2 MiB pages inside the
// block: a huge page is resident as a whole once touched.
void advise_huge_pages(char* from, std::size_t bytes) noexcept {
  const std::uintptr_t begin = align_up(reinterpret_cast<std::uintptr_t>(from), SegmentHeap::kSegmentStep);
  const std::uintptr_t end = align_down(reinterpret_cast<std::uintptr_t>(from) + bytes, SegmentHeap::kSegmentStep);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// `length` bytes mapped at a 2 MiB boundary; nullptr when the system refuses.
char* map_aligned(std::size_t length) noexcept {
  // One step more than needed, then the ends are dropped.
  void* raw = mmap(nullptr, length + SegmentHeap::kSegmentStep, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = align_up(start, SegmentHeap::kSegmentStep);
  const std::uintptr_t end = start + length + SegmentHeap::kSegmentStep;
  if (aligned > start) munmap(raw, aligned - start);
  if (end > aligned + length) munmap(reinterpret_cast<void*>(aligned + length), end - aligned - length);
  return reinterpret_cast<char*>(aligned);
}

// `high`, the block just above `low`, becomes part of `low`'s payload.
void absorb(Header* low, Header* high) noexcept {
  low->bytes += SegmentHeap::kHeaderBytes + high->bytes;
  low->clean = high->clean;
  low->after = high->after;
  if (low->after != nullptr) low->after->before = low;
  set_free(high, SegmentHeap::kHeaderBytes, true);
}

}  // namespace

void SegmentHeap::link(Header* block) noexcept {
  block->free = true;
  free_bytes_ += block->bytes;
  clean_bytes_ += block->clean;
  if (!binned(block)) return;
  const std::size_t bin = bin_of(block->bytes);
  block->prev_free = nullptr;
  block->next_free = bins_[bin];
  if (bins_[bin] != nullptr) bins_[bin]->prev_free = block;
  bins_[bin] = block;
  nonempty_[bin / 64] |= std::uint64_t{1} << (bin % 64);
}

void SegmentHeap::unlink(Header* block) noexcept {
  block->free = false;
  free_bytes_ -= block->bytes;
  clean_bytes_ -= block->clean;
  if (!binned(block)) return;
  const std::size_t bin = bin_of(block->bytes);
  if (block->prev_free != nullptr) {
    block->prev_free->next_free = block->next_free;
  } else {
    bins_[bin] = block->next_free;
    if (bins_[bin] == nullptr) nonempty_[bin / 64] &= ~(std::uint64_t{1} << (bin % 64));
  }
  if (block->next_free != nullptr) block->next_free->prev_free = block->prev_free;
}

// `block` is unlinked; its first `bytes` become the caller's, the rest a free block.
void* SegmentHeap::cut(Header* block, std::size_t bytes) noexcept {
  const std::size_t rest = block->bytes - bytes;
  if (rest >= kHeaderBytes) {
    auto* tail = reinterpret_cast<Header*>(payload(block) + bytes);
    set_free(tail, kHeaderBytes, false);
    new (tail) Header{block,         block->after, nullptr, nullptr, rest - kHeaderBytes,
                      std::min(block->clean, rest - kHeaderBytes), false};
    if (block->after != nullptr) block->after->before = tail;
    block->after = tail;
    block->bytes = bytes;
    link(tail);
  }
  set_free(payload(block), bytes, false);
  return payload(block);
}

std::size_t SegmentHeap::smallest_bin_from(std::size_t bin) const noexcept {
  for (std::size_t word = bin / 64; word < kWords; ++word) {
    std::uint64_t bits = nonempty_[word];
    if (word == bin / 64) bits &= ~std::uint64_t{0} << (bin % 64);
    if (bits != 0) return word * 64 + std::countr_zero(bits);
  }
  return kBins;
}

void* SegmentHeap::take(std::size_t bytes) noexcept {
  Header* best = nullptr;
  std::size_t best_fresh = 0;  // bytes of `best` the request would write for the first time
  for (std::size_t bin = smallest_bin_from(bin_of(bytes)); bin < kBins; bin = smallest_bin_from(bin + 1)) {
    Header* block = bins_[bin];
    for (int looked = 0; block != nullptr && looked < kFitLookLimit; ++looked, block = block->next_free) {
      if (block->bytes < bytes) continue;
      const std::size_t written = block->bytes - block->clean;
      const std::size_t fresh = bytes > written ? bytes - written : 0;
      if (best == nullptr || fresh < best_fresh || (fresh == best_fresh && block->bytes < best->bytes)) {
        best = block;
        best_fresh = fresh;
      }
    }
    if (best != nullptr && best_fresh == 0) break;  // bins ascend: the best fit of the written ones
  }
  if (best == nullptr) return nullptr;
  unlink(best);
  return cut(best, bytes);
}

void* SegmentHeap::grow(std::size_t bytes) noexcept {
  const std::size_t length = std::max(align_up(bytes + kHeaderBytes, kSegmentStep), kMinSegment);
  char* base = map_aligned(length);
  if (base == nullptr) return nullptr;
  auto* block = new (base) Header{};
  block->bytes = length - kHeaderBytes;
  block->clean = block->bytes;
  set_free(payload(block), block->bytes, true);
  // Advised here, once, not on every reuse: madvise takes the address
  // space's lock for writing and splits mappings.
  if (bytes >= kSegmentStep) advise_huge_pages(payload(block), bytes);
  return cut(block, bytes);
}

void SegmentHeap::give_back(void* ptr) noexcept {
  Header* block = header_of(ptr);
  block->clean = 0;
  set_free(ptr, block->bytes, true);
  if (Header* next = block->after; next != nullptr && next->free) {
    unlink(next);
    absorb(block, next);
  }
  if (Header* previous = block->before; previous != nullptr && previous->free) {
    unlink(previous);
    absorb(previous, block);
    block = previous;
  }
  link(block);
}

std::size_t SegmentHeap::capacity(const void* ptr) noexcept { return header_of(ptr)->bytes; }

std::uint64_t SegmentHeap::trim(std::uint64_t wanted) noexcept {
  static const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  const std::uint64_t kept_before = kept_bytes();
  auto returned = [&] { return kept_before - kept_bytes(); };
  for (std::size_t bin = kBins; bin-- > 0 && returned() < wanted;) {
    for (Header* block = bins_[bin]; block != nullptr && returned() < wanted;) {
      Header* next = block->next_free;
      if (block->before == nullptr && block->after == nullptr) {
        unlink(block);
        const std::size_t length = kHeaderBytes + block->bytes;
        set_free(block, length, false);  // the range may be mapped again, by anyone
        munmap(block, length);
      } else if (block->bytes >= kReturnPagesFrom && block->clean < block->bytes) {
        const std::uintptr_t begin = align_up(reinterpret_cast<std::uintptr_t>(payload(block)), page);
        const std::uintptr_t end = align_down(reinterpret_cast<std::uintptr_t>(payload(block)) + block->bytes, page);
        if (end > begin && madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED) == 0) {
          clean_bytes_ += block->bytes - block->clean;
          block->clean = block->bytes;
        }
      }
      block = next;
    }
  }
  return returned();
}

}  // namespace kiln::memory

// Storage: the bytes behind one or more tensors (views share a storage).
//
// A storage made by a recorded op is *pending*: its bytes are allocated and
// written only when the segment that produces it runs. `writer` names the
// trace buffer holding unflushed writes to it; `readers` counts buffers
// whose pending ops read it. Together they let any thread see whether it
// must flush another thread's buffer before touching the storage.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <kiln/memory/memory.h>

namespace kiln::trace {

class TraceBuffer;

class Storage {
 public:
  /// An unallocated storage of `nbytes`; memory is taken at first write or read.
  explicit Storage(std::size_t nbytes) : nbytes_(nbytes) {}
  /// Borrowed memory (from_blob): never freed by kiln; `deleter`, if any, runs when the storage dies.
  Storage(void* data, std::size_t nbytes, std::function<void(void*)> deleter);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  std::size_t nbytes() const { return nbytes_; }
  /// Memory the user lent (from_blob): they can read and write it behind
  /// kiln's back, so ops touching it are not deferred.
  bool is_borrowed() const { return borrowed_; }
  bool is_allocated() const { return data_ != nullptr; }
  /// The bytes; allocates them (from the memory pool) on first use.
  void* data() {
    if (!data_) allocate();
    return data_;
  }
  /// Returns pooled memory early (a segment's intermediate after its last reader).
  void release_memory() noexcept;

  /// Set when the segment that was to write this storage failed: reading it
  /// rethrows the original message instead of returning garbage.
  void poison(std::string message) { failure_ = std::make_shared<const std::string>(std::move(message)); }
  const std::string* failure() const { return failure_.get(); }

  /// Counts the in-place writes recorded into this storage (LibTorch's
  /// version counter, shared by every view): a value saved for backward
  /// remembers it, so a later write is detected instead of silently used.
  std::uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

  std::atomic<TraceBuffer*> writer{nullptr};
  std::atomic<std::int32_t> readers{0};
  /// (buffer serial << 32 | value slot) of the last buffer that looked this
  /// storage up: a verified hint, so recording needs no hash map.
  std::atomic<std::uint64_t> slot_hint{~std::uint64_t{0}};

 private:
  void allocate();

  std::size_t nbytes_;
  void* data_ = nullptr;
  memory::Block block_;
  std::function<void(void*)> deleter_;
  bool borrowed_ = false;
  std::shared_ptr<const std::string> failure_;
  std::atomic<std::uint32_t> version_{0};
};

}  // namespace kiln::trace

// Storage: the bytes behind one or more tensors (views share a storage).
//
// A storage made by a recorded op is *pending*: its bytes are allocated and
// written only when the segment that produces it runs. `writer` names the
// trace buffer holding unflushed writes to it; `readers` counts buffers
// whose pending ops read it. Together they let any thread see whether it
// must flush another thread's buffer before touching the storage.
//
// Residency: while a memory budget is set, an allocated storage is a
// memory::Resident, and one with a recipe (trace/recipe.h) may be evicted
// to make room: its bytes are freed and recomputed at its next use. Code
// that touches the bytes holds a Pin for as long as it uses them: pinning
// recomputes an evicted storage, and a pinned storage is never evicted.
// The pin's fast path is two atomic operations against the evictor's two
// (a Dekker handshake on `pins_` and `state_`), no lock.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <kiln/memory/memory.h>

#include "memory/residency.h"

namespace kiln::trace {

class TraceBuffer;
struct Node;
struct Recipe;
/// Deletes a Recipe where its type is complete (trace/recipe.cpp), so that
/// this header need not include it (recipe.h includes segment.h, which
/// includes this).
struct RecipeDeleter {
  void operator()(Recipe* recipe) const noexcept;
};
using RecipePtr = std::unique_ptr<Recipe, RecipeDeleter>;

/// Called with the serial of a dying storage that was marked
/// (Storage::mark_serial_used), so that a cache keyed by serials drops
/// what it holds for it; registered once by a higher layer.
using StorageDeathHook = void (*)(std::uint64_t serial);
void set_storage_death_hook(StorageDeathHook hook);

class Storage final : public memory::Resident {
 public:
  /// An unallocated storage of `nbytes`; memory is taken at first write or read.
  explicit Storage(std::size_t nbytes);
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
  /// The bytes; allocates them (from the memory pool) on first use. Hold a
  /// Pin while using them: an unpinned storage may be evicted meanwhile.
  void* data() {
    if (!data_) allocate();
    return data_;
  }
  /// Returns pooled memory early (a segment's intermediate after its last
  /// reader: no handle holds it, none ever will). With a recipe it stays
  /// recomputable (evicted), for the recipes that read it; else it is gone.
  void release_memory() noexcept;
  /// release_memory(), except that the bytes go to `heir` instead of the
  /// pool: the output of an elementwise node takes the memory of an input
  /// that dies at it (jit/bound_node.h), so the node needs none of its own.
  /// `heir` must be unallocated and of the same size class. False, the
  /// bytes staying here, where release_memory() would keep them (they are
  /// read: pinned or being recomputed, or wanted by an evicted value without
  /// a recipe to make them again), where they are not this storage's to
  /// give (borrowed, unallocated), or where `heir` cannot take them.
  bool give_memory_to(Storage& heir) noexcept;

  /// Whether the memory manager freed its bytes (it is recomputed when pinned).
  bool is_evicted() const { return state_.load(std::memory_order_acquire) == kEvicted; }
  bool has_recipe() const { return has_recipe_.load(std::memory_order_relaxed); }
  /// Registered with the memory manager (allocated while a budget was set).
  bool is_tracked() const { return tracked_.load(std::memory_order_relaxed); }
  /// Its bytes were returned after their last use, with no recipe to make them again.
  bool is_released() const { return released_.load(std::memory_order_relaxed); }
  /// Never evicted from now on: the user holds a pointer into it (data_ptr)
  /// and may write through it, so it is treated as overwritten now.
  void pin_forever();
  bool is_pinned_forever() const { return pinned_forever_.load(); }

  /// Never evicted from now on, and so it keeps no recipe: a leaf the
  /// program keeps across steps whatever its producer, optimizer state
  /// (frontend/optim/state_tensor.h) or a gradient accumulated into .grad.
  /// `why` (a literal) is what the memory report says of it.
  void keep_resident(const char* why);
  bool is_kept_resident() const { return kept_because_.load(std::memory_order_relaxed) != nullptr; }

  /// Whether recipes of other values read this storage.
  bool has_dependents() const { return has_dependents_.load(std::memory_order_acquire); }
  /// Called before this storage is written in place: the recipes that read
  /// it read a copy of what it holds now instead (held by them), unless
  /// they can simply go (see plan_forgetting).
  void before_overwrite();
  /// Under memory::residency_mutex(): `reader`'s recipe reads this storage.
  void add_dependent(const std::shared_ptr<Storage>& reader);
  /// Counts the recipes holding it (trace::HeldRef).
  void count_recipe_holder(int delta) noexcept { held_by_recipes_.fetch_add(delta, std::memory_order_relaxed); }

  // memory::Resident, under memory::residency_mutex().
  std::size_t resident_bytes() const override { return block_.bytes; }
  const char* why_not_evictable() const override;
  memory::Candidate candidate(std::uint64_t now) const override;
  bool unreferenced() const override { return dead_.load(std::memory_order_relaxed); }
  bool evict() override;
  std::string what() const override;
  std::uint32_t made_at() const override;
  bool is_last_resort() const override;
  std::size_t evict_last_resort() override;

  /// Under memory::residency_mutex(): installs `recipe` (null: drops the
  /// one it had, with `why` it has none) and returns the old one, to be
  /// destroyed after the lock is released (it may hold the last reference
  /// to another storage, whose destructor takes the lock).
  RecipePtr swap_recipe(RecipePtr recipe, const char* why);
  /// Under memory::residency_mutex(): its recipe, null if none.
  const Recipe* recipe() const { return recipe_.get(); }
  /// The longest chain of producers behind it (0: no recipe).
  std::uint32_t recipe_depth() const { return recipe_depth_.load(std::memory_order_relaxed); }

  /// Set when the segment that was to write this storage failed: reading it
  /// rethrows the original message instead of returning garbage.
  void poison(std::string message) { failure_ = std::make_shared<const std::string>(std::move(message)); }
  const std::string* failure() const { return failure_.get(); }

  /// Counts the in-place writes recorded into this storage (LibTorch's
  /// version counter, shared by every view): a value saved for backward
  /// remembers it, so a later write is detected instead of silently used.
  std::uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

  /// What the bytes hold, for caches of what is derived from them (a
  /// weight packed for the GEMM, jit/kernels/gemm_prepacked.h): a serial no
  /// other storage has, and a count of the writes begun into it since a
  /// cache first used the serial (mark_serial_used). Unlike version(),
  /// counted when a write runs, not when it is recorded: note_write() by
  /// each segment run that writes the storage (the engine's and compiled
  /// programs' replays alike) and by each access for writing from outside
  /// the trace (trace::prepare_access). Equal serial and writes, equal
  /// bytes -- unless content_known() is false: memory lent by from_blob, or
  /// whose data_ptr() was handed out, changes behind kiln.
  std::uint64_t serial() const { return serial_; }
  std::uint64_t writes() const { return writes_.load(std::memory_order_acquire); }
  /// Counts a write, if a cache uses the serial: before that, no count was
  /// taken that a write could make stale, and a segment run skips the
  /// atomic add for the values nothing caches (nearly all of them).
  void note_write() {
    if (serial_used_.load(std::memory_order_acquire)) writes_.fetch_add(1, std::memory_order_acq_rel);
  }
  bool content_known() const { return !borrowed_ && !pinned_forever_.load(std::memory_order_acquire); }
  /// A cache keeps something under serial() from now on: writes are
  /// counted, and the death hook (set_storage_death_hook) is told when this
  /// storage dies.
  void mark_serial_used() { serial_used_.store(true, std::memory_order_release); }

  /// Marks this storage as about to be read, until the mark is destroyed:
  /// meanwhile it is evicted only when nothing else can go
  /// (memory::only_when_nothing_else). A softer Pin, for the inputs of a
  /// node while its evicted inputs are recomputed (make_inputs_resident);
  /// the caller keeps the storage alive.
  struct Unawait {
    void operator()(Storage* s) const noexcept { s->awaited_.fetch_sub(1, std::memory_order_relaxed); }
  };
  using Awaited = std::unique_ptr<Storage, Unawait>;
  Awaited await() {
    awaited_.fetch_add(1, std::memory_order_relaxed);
    return Awaited(this);
  }

  /// Keeps a storage's bytes in memory (recomputing them if they were
  /// evicted) for the Pin's lifetime.
  class Pin {
   public:
    explicit Pin(Storage& s);
    ~Pin() {
      if (s_) s_->pins_.fetch_sub(1, std::memory_order_release);
    }
    Pin(Pin&& other) noexcept : s_(std::exchange(other.s_, nullptr)) {}
    Pin(const Pin&) = delete;
    Pin& operator=(const Pin&) = delete;
    Pin& operator=(Pin&&) = delete;

   private:
    Storage* s_;
  };

  std::atomic<TraceBuffer*> writer{nullptr};
  std::atomic<std::int32_t> readers{0};
  /// (buffer serial << 32 | value slot) of the last buffer that looked this
  /// storage up: a verified hint, so recording needs no hash map.
  std::atomic<std::uint64_t> slot_hint{~std::uint64_t{0}};

 private:
  // kLost: freed for good (dead, and nothing evicted is made from it); a
  // use would be a kiln bug, and throws instead of reading freed bytes.
  enum State : std::uint8_t { kResident, kEvicting, kEvicted, kRecomputing, kLost };
  struct Dependent {
    std::weak_ptr<Storage> weak;
    Storage* raw;  // valid under the lock while `weak` has not expired
  };

  void allocate();
  void take_block(memory::Block block);
  bool let_go(Storage* heir) noexcept;
  void settle();
  void recompute(std::unique_lock<std::mutex>& lock);
  bool hold_leaves();
  bool reads(const Storage* input) const;
  // Is a value evicted, or being recomputed, from this one? `held_only`:
  // one the program still holds (not dead); those in `besides` do not count.
  bool has_evicted_reader(bool held_only = false, std::span<const Storage* const> besides = {}) const;
  // Under the lock: the nodes recompute() runs, their operands numbered
  // over `inputs` (filled: the storages they read), this value last;
  // `made_here` gets this value and the evicted producers the nodes make in
  // its memory (trace/storage_recompute.cpp).
  std::vector<Node> recomputation(std::vector<std::shared_ptr<Storage>>& inputs,
                                  std::vector<const Storage*>& made_here) const;
  // What dropping the recipes made from this storage's bytes would do:
  // `lose` values nothing but recipes wants, `strip` resident values that
  // keep their bytes but could no longer be evicted.
  struct Forgetting {
    std::vector<Storage*> lose, strip;
    std::size_t unevictable = 0;  // the bytes of `strip` that could be evicted now
  };
  bool plan_forgetting(Forgetting& plan) const;
  static std::size_t forget(const Forgetting& plan, std::vector<RecipePtr>& dropped);
  std::size_t free_for_good();
  const char* recipe_problem() const;

  std::size_t nbytes_;
  void* data_ = nullptr;
  memory::Block block_;
  std::function<void(void*)> deleter_;
  bool borrowed_ = false;
  std::shared_ptr<const std::string> failure_;
  std::atomic<std::uint32_t> version_{0};
  const std::uint64_t serial_;
  std::atomic<std::uint64_t> writes_{0};
  std::atomic<bool> serial_used_{false};

  // Residency. `pins_` and `state_` are the lock-free handshake; the rest is
  // under memory::residency_mutex().
  std::atomic<std::uint32_t> pins_{0};
  std::atomic<std::uint32_t> awaited_{0};  // Awaited holders
  std::atomic<std::uint8_t> state_{kResident};
  std::atomic<bool> has_recipe_{false};
  std::atomic<std::uint32_t> recipe_depth_{0};
  std::atomic<bool> tracked_{false};  // ever registered: release and destruction take the lock
  std::atomic<bool> released_{false};
  std::atomic<bool> dead_{false};  // released after its last use: only recipes may want it
  std::atomic<std::uint64_t> last_use_{0};  // memory::use_tick() of its last use
  std::atomic<bool> pinned_forever_{false};
  std::atomic<const char*> kept_because_{nullptr};  // keep_resident's why: never evicted, no recipe
  const char* no_recipe_ = nullptr;  // why it has none; null: a leaf
  bool snapshot_ = false;  // a copy of a storage's bytes before a write, read only by recipes (before_overwrite)
  RecipePtr recipe_;
  std::thread::id recomputer_;
  std::vector<Dependent> dependents_;
  std::size_t prune_dependents_at_ = 8;
  std::atomic<bool> has_dependents_{false};
  std::atomic<std::int32_t> held_by_recipes_{0};
};

/// Recomputes the evicted storages among those a kernel is about to pin
/// before any is pinned, all of them awaited meanwhile; returns the marks
/// (none when nothing was evicted), to be held until the caller has pinned
/// every one (one evicted again meanwhile,
/// when nothing else could go, is recomputed by its Pin). Pinned one by
/// one instead, an input already made would stay in memory while the next
/// is recomputed; in a chain of evicted values each level waits for the
/// next, so the inputs of every level were held at once.
std::vector<Storage::Awaited> make_inputs_resident(std::span<Storage* const> inputs);

}  // namespace kiln::trace

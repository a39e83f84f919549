// Residency: the values that hold memory, and which of them to evict when an
// allocation would pass the budget.
//
// A higher layer (trace/'s Storage) registers each allocated value as a
// Resident while a budget is set. Over budget, allocate() asks make_room()
// to free enough: it takes the values no handle refers to first (a flag
// read per resident), else samples about sqrt(N) residents (DTR's
// prototype does the same, so a step with thousands of live values pays
// microseconds), scores the evictable ones with the eviction policy,
// evicts the lowest and repeats. A value that cannot be evicted (a leaf,
// pinned, in use) says why, and the OOM report lists the largest such
// values with their reasons.
//
// memory/ knows nothing of ops: how a value is recomputed, and what its
// recomputation costs, is the Resident's business.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::memory {

/// What the policy sees of one evictable value.
struct Candidate {
  std::size_t bytes = 0;  // freed by evicting it
  double cost_ns = 0;     // time to recompute it, with its evicted neighbours (DTR's e*)
  double idle = 0;        // uses of values since its last use (DTR's staleness, on use_tick's clock)
  std::uint32_t evicted_producers = 0;  // evicted values its recomputation would recompute first
  double own_cost_ns = 0;  // time to recompute it alone (its producer's)
  bool awaited = false;    // an input of a kernel about to run, waiting while its other inputs are recomputed
};

/// Evicted producers past which a value goes only when nothing else can:
/// each use of it would recompute the whole chain, and a chain that long
/// (a momentum buffer made from a gradient made from the whole backward
/// pass) is a thrash waiting to happen.
inline constexpr std::uint32_t kLongChain = 16;

/// Whether a candidate goes only when nothing else can: at the end of a
/// long chain of evicted producers, or awaited by a reader about to run
/// (evicted, it would be made again at once).
inline bool only_when_nothing_else(const Candidate& c) { return c.awaited || c.evicted_producers > kLongChain; }

/// The residency clock: one tick per use of a value. Staleness counted in
/// uses, not nanoseconds, so that the same program evicts the same values
/// however loaded the machine is.
std::uint64_t use_tick() noexcept;

/// The eviction heuristics (KILN_EVICTION_POLICY): DTR's cost / (bytes x
/// staleness), the same with its own cost only (the DTR paper's local
/// variant), least recently used first, largest first. Lower scores go
/// first.
enum class Policy { Dtr, DtrLocal, Lru, Largest };
double score(Policy policy, const Candidate& c);
Policy policy();
void set_policy(Policy policy);
/// "dtr", "dtr_local", "lru", "largest".
const char* policy_name(Policy policy);
Policy policy_named(std::string_view name);  // one of policy_name's words

/// One value holding memory. Every virtual is called under residency_mutex().
class Resident {
 public:
  static constexpr std::size_t kUnregistered = ~std::size_t{0};

  /// Memory it holds now.
  virtual std::size_t resident_bytes() const = 0;
  /// Null when it can be evicted now, else why not ("a leaf", "pinned").
  virtual const char* why_not_evictable() const = 0;
  /// Only for evictable residents.
  virtual Candidate candidate(std::uint64_t now) const = 0;
  /// No handle refers to it: only the recomputation of a value made from
  /// it may read it again (make_room evicts such values first).
  virtual bool unreferenced() const { return false; }
  /// Frees its memory (it recomputes itself when used next); false when a
  /// use that began meanwhile keeps it.
  virtual bool evict() = 0;
  /// Dtype, shape and producer ("Float [4096, 256] made by matmul"): the
  /// OOM report's line and the eviction and recomputation events' detail.
  virtual std::string what() const = 0;
  /// The cut site of the segment that made it (profiler/cut_sites.h); 0:
  /// none. The OOM report names it.
  virtual std::uint32_t made_at() const { return 0; }
  /// Memory that can go only at a price, when nothing is evictable: no
  /// recomputation brings it back, and values made from it can no longer
  /// be evicted (a copy kept for recipes).
  virtual bool is_last_resort() const { return false; }
  /// Frees a last resort; the bytes freed (its own and any it takes with
  /// it), 0 when it cannot go now. The caller unregisters it.
  virtual std::size_t evict_last_resort() { return 0; }

  std::size_t registry_slot = kUnregistered;

 protected:
  ~Resident() = default;
};

/// Whether a budget is set now: values register and keep recipes.
bool residency_enabled();
/// Whether a budget was ever set: from then on a value's destruction
/// takes residency_mutex() (a recipe may be reading it under the lock).
bool residency_ever_enabled() noexcept;

/// Guards the registry and every Resident's residency state.
std::mutex& residency_mutex();

/// Under residency_mutex(): adds or removes a resident (removing an
/// unregistered one does nothing).
void add_resident(Resident& r);
void remove_resident(Resident& r);

/// Evicts residents until `bytes` were freed; false when nothing
/// evictable is left. Takes residency_mutex() itself.
bool make_room(std::size_t bytes);

/// An eviction, as the counters and the timeline get it.
struct Evicted {
  std::size_t bytes;
  std::string what;   // Resident::what()
  std::uint32_t site;  // Resident::made_at()
};

/// Under residency_mutex(): evicts `r` now, whatever the policy would pick
/// (a value nothing but recipes can want, right after a recomputation read
/// it); the bytes freed, 0 when it could not go. What went is appended to
/// `evicted`, for note_evictions() to count after the lock is released.
std::size_t evict_now(Resident& r, std::vector<Evicted>& evicted);
void note_evictions(const std::vector<Evicted>& evicted);

/// The OOM report's part about residents: the largest, and why they stay.
std::string residents_report();

/// Counts a recomputation and adds `ns` to the time spent recomputing (the
/// Resident's side does it; 0 for one nested in another, whose time counts).
void note_recompute(std::int64_t ns) noexcept;

struct ResidencyStats {
  std::uint64_t evictions = 0;
  std::uint64_t bytes_evicted = 0;
  std::uint64_t recomputes = 0;
  double recompute_ms = 0;
  std::uint64_t ooms_avoided = 0;
};
ResidencyStats residency_stats();

}  // namespace kiln::memory

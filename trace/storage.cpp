#include "trace/storage.h"

#include <algorithm>
#include <condition_variable>
#include <vector>

#include <kiln/error.h>

#include "memory/size_class.h"
#include "profiler/cut_sites.h"
#include "profiler/enabled.h"
#include "profiler/events.h"
#include "profiler/format.h"
#include "trace/recipe.h"
#include "trace/storage_internal.h"

namespace kiln::trace {
namespace {

std::atomic<Rematerializer> g_rematerializer{nullptr};

// Values in the smallest block (64 bytes: a scalar, a few elements) are
// never evicted (why_not_evictable): the recipe an evicted value keeps
// takes more memory than that.
constexpr std::size_t kSmallestBlock = memory::class_bytes(0);

// Woken when a recomputation ends; waited on under memory::residency_mutex().
std::condition_variable& recomputed() {
  static auto* cv = new std::condition_variable;
  return *cv;
}

// Recipes dropped under the lock are destroyed after it is released: a
// recipe may hold the last reference to a storage, whose destructor takes
// the lock. Eviction (under make_room's lock) leaves them here.
std::vector<RecipePtr>& graveyard() {
  static auto* dropped = new std::vector<RecipePtr>;
  return *dropped;
}
std::atomic<bool> g_graveyard_used{false};

// Without the lock.
void empty_graveyard() {
  if (!g_graveyard_used.load(std::memory_order_relaxed)) return;
  std::vector<RecipePtr> dropped;  // destroyed after the lock is released
  std::lock_guard lock(memory::residency_mutex());
  dropped.swap(graveyard());
  g_graveyard_used.store(false, std::memory_order_relaxed);
}

}  // namespace

ChainCost chain_cost(const Recipe& recipe) {
  constexpr std::uint32_t kMaxVisits = 64;
  ChainCost chain{static_cast<double>(recipe.cost_ns), 0};
  std::vector<const Recipe*> stack{&recipe};
  std::vector<const Storage*> seen;
  while (!stack.empty() && chain.evicted < kMaxVisits) {
    const Recipe* r = stack.back();
    stack.pop_back();
    for (const Recipe::Input& in : r->inputs) {
      const Storage* s = in.held.get();
      if (!s || !s->is_evicted() || !s->recipe()) continue;
      bool known = false;
      for (const Storage* t : seen) known |= t == s;
      if (known) continue;
      seen.push_back(s);
      ++chain.evicted;
      chain.ns += static_cast<double>(s->recipe()->cost_ns);
      stack.push_back(s->recipe());
    }
  }
  return chain;
}

void bury(std::vector<RecipePtr>& dropped) {
  if (dropped.empty()) return;
  for (RecipePtr& r : dropped) graveyard().push_back(std::move(r));
  g_graveyard_used.store(true, std::memory_order_relaxed);
}

void set_rematerializer(Rematerializer fn) { g_rematerializer.store(fn); }

namespace {
// Serials start at 1: 0 means "no storage" to the caches keyed by them.
std::uint64_t next_serial() {
  static std::atomic<std::uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

std::atomic<StorageDeathHook> g_death_hook{nullptr};
}  // namespace

void set_storage_death_hook(StorageDeathHook hook) { g_death_hook.store(hook); }

Storage::Storage(std::size_t nbytes) : nbytes_(nbytes), serial_(next_serial()) {}

Storage::Storage(void* data, std::size_t nbytes, std::function<void(void*)> deleter)
    : nbytes_(nbytes), data_(data), deleter_(std::move(deleter)), borrowed_(true), serial_(next_serial()) {}

Storage::~Storage() {
  if (serial_used_.load(std::memory_order_relaxed))
    if (const StorageDeathHook hook = g_death_hook.load()) hook(serial_);
  // A recipe may be reading this storage under the lock (its flags, its
  // state): that read ends before the members go. The recipe this storage
  // holds is destroyed after the lock is released.
  RecipePtr recipe;
  if (memory::residency_ever_enabled()) {
    std::lock_guard lock(memory::residency_mutex());
    memory::remove_resident(*this);
    recipe = std::move(recipe_);
  }
  if (borrowed_) {
    if (deleter_) deleter_(data_);
  } else if (block_.ptr) {
    memory::release(block_);
  }
}

void Storage::allocate() {
  KILN_CHECK(state_.load() != kEvicted, "an evicted storage written without a pin");
  take_block(memory::allocate(nbytes_));
  empty_graveyard();  // what making room for it may have dropped
}

void Storage::take_block(memory::Block block) {
  block_ = block;
  data_ = block_.ptr;
  if (memory::residency_enabled()) {
    std::lock_guard lock(memory::residency_mutex());
    tracked_.store(true, std::memory_order_relaxed);
    last_use_.store(memory::use_tick(), std::memory_order_relaxed);
    memory::add_resident(*this);
  }
}

void Storage::release_memory() noexcept { let_go(nullptr); }

bool Storage::give_memory_to(Storage& heir) noexcept {
  if (heir.borrowed_ || heir.data_ || heir.state_.load() != kResident) return false;
  // The block is read where an evictor cannot write it: under the
  // residency lock when this value is a resident.
  const std::size_t heir_bytes = memory::class_bytes(memory::class_index(heir.nbytes_));
  if (tracked_.load(std::memory_order_relaxed)) {
    std::lock_guard lock(memory::residency_mutex());
    if (block_.bytes != heir_bytes) return false;
  } else if (block_.bytes != heir_bytes) {
    return false;
  }
  return let_go(&heir);
}

// Returns the bytes to the pool, or hands them to `heir`: true if they went.
bool Storage::let_go(Storage* heir) noexcept {
  if (borrowed_) return false;
  dead_.store(true, std::memory_order_relaxed);
  memory::Block block;
  if (!tracked_.load(std::memory_order_relaxed)) {
    block = block_;
    if (!block.ptr) return false;
    block_ = {};
    data_ = nullptr;
    released_.store(true, std::memory_order_relaxed);
  } else {
    RecipePtr lost;  // destroyed after the lock is released
    std::lock_guard lock(memory::residency_mutex());
    // Kept: it has no bytes or they are being made; or it has no recipe and
    // an evicted value is to be recomputed from it (it goes once none is:
    // why_not_evictable); or an evicted value the program still holds is
    // made from it: it stays resident, for the policy to weigh. Freed here,
    // that value's next use recomputed this one too, and whatever else had
    // died since: in memory_bench's residual stack (batch 1024, 70 % of its
    // peak, JIT), a backward product evicted when its recipe had no evicted
    // producer came back through 64 or more, 112 ms for one value.
    if (!block_.ptr || state_.load() != kResident || has_evicted_reader(recipe_ && !recipe_problem())) return false;
    // Or a recomputation reads it: the evictor's handshake (evict()), since a
    // recipe on another thread may pin it without the lock.
    state_.store(kEvicting);  // seq_cst: then read pins_, as a pin does the reverse
    if (pins_.load() != 0) {
      state_.store(kResident);
      return false;
    }
    block = block_;
    memory::remove_resident(*this);
    block_ = {};
    data_ = nullptr;
    if (recipe_ && !recipe_problem() && hold_leaves()) {
      state_.store(kEvicted, std::memory_order_release);
    } else {
      lost = std::move(recipe_);
      has_recipe_.store(false, std::memory_order_relaxed);
      recipe_depth_.store(0, std::memory_order_relaxed);
      released_.store(true, std::memory_order_relaxed);
      no_recipe_ = "freed after its last use";
      state_.store(kResident);  // with no bytes: released_ says so
    }
  }
  if (heir) heir->take_block(block);
  else memory::release(block);
  return true;
}

bool Storage::hold_leaves() {
  for (Recipe::Input& in : recipe_->inputs) {
    if (in.held) continue;
    in.held = HeldRef(in.watch.lock());
    if (!in.held) return false;  // what was locked stays held: dropping it here could destroy it under the lock
  }
  return true;
}

void Storage::pin_forever() {
  if (pinned_forever_.exchange(true)) return;
  if (has_dependents()) before_overwrite();
}

void Storage::keep_resident(const char* why) {
  if (kept_because_.exchange(why)) return;
  RecipePtr recipe;  // destroyed after the lock is released
  const Pin pin(*this);  // an evicted one comes back first
  std::lock_guard lock(memory::residency_mutex());
  if (recipe_) recipe = swap_recipe(nullptr, why);
}

void Storage::add_dependent(const std::shared_ptr<Storage>& reader) {
  if (dependents_.size() >= prune_dependents_at_) {
    std::erase_if(dependents_, [](const Dependent& d) { return d.weak.expired(); });
    prune_dependents_at_ = std::max<std::size_t>(8, 2 * dependents_.size());
  }
  dependents_.push_back({reader, reader.get()});
  has_dependents_.store(true, std::memory_order_release);
}

// Under the lock.
bool Storage::has_evicted_reader(bool held_only, std::span<const Storage* const> besides) const {
  for (const Dependent& d : dependents_) {
    if (d.weak.expired() || !d.raw->reads(this)) continue;
    if (std::find(besides.begin(), besides.end(), d.raw) != besides.end()) continue;
    if (held_only && d.raw->dead_.load(std::memory_order_relaxed)) continue;
    const std::uint8_t state = d.raw->state_.load();
    if (state == kEvicted || state == kRecomputing) return true;
  }
  return false;
}

bool Storage::reads(const Storage* input) const {
  if (!recipe_) return false;
  for (const Recipe::Input& in : recipe_->inputs)
    if (in.storage == input) return true;
  return false;
}

// Under the lock: its bytes (if any) go, and nothing will make them again;
// the bytes freed. A use after this would be a kiln bug: it throws, never
// reads freed bytes (kLost).
std::size_t Storage::free_for_good() {
  const std::size_t freed = block_.bytes;
  if (block_.ptr) memory::release(block_);
  block_ = {};
  data_ = nullptr;
  released_.store(true, std::memory_order_relaxed);
  state_.store(kLost);
  return freed;
}

Storage::Pin::Pin(Storage& s) : s_(&s) {
  s.pins_.fetch_add(1);  // seq_cst: the evictor sets state_, then reads pins_
  if (s.state_.load() != kResident) [[unlikely]] {
    try {
      s.settle();
    } catch (...) {
      s.pins_.fetch_sub(1);
      throw;
    }
  }
  if (s.tracked_.load(std::memory_order_relaxed)) s.last_use_.store(memory::use_tick(), std::memory_order_relaxed);
}

void Storage::settle() {
  std::unique_lock lock(memory::residency_mutex());
  for (;;) {
    switch (state_.load()) {
      case kResident: return;
      case kEvicting:  // set and cleared under the lock: never seen here
        KILN_CHECK(false, "a storage seen mid-eviction");
        return;
      case kRecomputing:
        if (recomputer_ == std::this_thread::get_id()) return;  // the recomputation writing it
        recomputed().wait(lock);
        break;
      case kEvicted: recompute(lock); return;
      case kLost:
        throw Error(detail::cat("[memory] ", nbytes_, " bytes evicted under the memory budget can no longer be ",
                                "recomputed: a tensor they were made from was overwritten (a kiln bug; please report)"));
    }
  }
}

// Under the lock, state kEvicted, pinned by the caller. Returns with the
// lock released (what it drops may destroy storages, which take it).
void Storage::recompute(std::unique_lock<std::mutex>& lock) {
  const Rematerializer rematerialize = g_rematerializer.load();
  KILN_CHECK(recipe_ && rematerialize, "an evicted storage without a recipe");
  state_.store(kRecomputing);
  recomputer_ = std::this_thread::get_id();
  std::vector<std::shared_ptr<Storage>> inputs;
  std::vector<const Storage*> made_here;
  const std::vector<Node> nodes = recomputation(inputs, made_here);
  // The recipe stays: only a write into this storage drops it, and a
  // writer pins first, so it waits for this recomputation.
  const Recipe& recipe = *recipe_;
  const std::string made = profiler::enabled() ? what() : std::string();  // for the event
  lock.unlock();
  const std::int64_t start = profiler::now_ns();
  // Recomputations of evicted inputs run inside this one: only the
  // outermost adds its time to the counter, which would otherwise count
  // theirs again (at half a stack's peak, 6 s "recomputing" in a 1.4 s step).
  static thread_local int t_nested = 0;
  const bool outermost = t_nested++ == 0;
  std::exception_ptr failure;
  try {
    rematerialize(*this, nodes, inputs);
  } catch (...) {
    failure = std::current_exception();
  }
  --t_nested;
  const std::int64_t took = profiler::now_ns() - start;
  std::vector<HeldRef> watched_again;  // leaves go back to being watched, not held
  std::vector<memory::Evicted> evicted;
  lock.lock();
  recomputer_ = {};
  if (failure) {
    if (block_.ptr) {
      memory::remove_resident(*this);
      memory::release(block_);
      block_ = {};
      data_ = nullptr;
    }
    state_.store(kEvicted);
  } else {
    for (Recipe::Input& in : recipe_->inputs)
      if (in.leaf) watched_again.push_back(std::move(in.held));
    state_.store(kResident);
    memory::add_resident(*this);
    last_use_.store(memory::use_tick(), std::memory_order_relaxed);
    // Inputs that only recipes can want (released by their segment) go
    // again at once, unless another evicted value is still to be made from
    // them or a node about to run reads them (awaited): kept, they would
    // push out values the program reads (just used, DTR would score them as
    // worth keeping). Producers made in this value's memory stay evicted,
    // and do not count: made in their own, they would have gone already.
    for (const std::shared_ptr<Storage>& in : inputs)
      if (in->dead_.load(std::memory_order_relaxed) && in->state_.load() == kResident && in->block_.ptr &&
          in->pins_.load() == 0 && in->awaited_.load(std::memory_order_relaxed) == 0 &&
          !in->has_evicted_reader(false, made_here))
        memory::evict_now(*in, evicted);
  }
  recomputed().notify_all();
  lock.unlock();
  memory::note_evictions(evicted);
  if (failure) std::rethrow_exception(failure);
  memory::note_recompute(outermost ? took : 0);
  profiler::log_event({profiler::EventKind::Recomputed, 0, profiler::format_bytes(nbytes_) + " " + made, recipe.site, start, took});
}

// Under the lock: why the recipe cannot make the value now, null if it can.
const char* Storage::recipe_problem() const {
  if (!recipe_) return no_recipe_ ? no_recipe_ : "a leaf: made by no recorded op (a parameter, an input, state)";
  for (const Recipe::Input& in : recipe_->inputs) {
    // A watched leaf that still exists cannot finish dying while the lock is
    // held (its destructor takes it first), so reading it here is safe.
    if (!in.held && in.watch.expired()) return "an input it is made from was freed";
    const Storage* s = in.storage;
    if (s->is_released() || s->state_.load() == kLost) return "an input it is made from was freed";
  }
  return nullptr;
}

const char* Storage::why_not_evictable() const {
  if (borrowed_) return "memory lent by from_blob";
  if (pinned_forever_.load()) return "its data_ptr() was handed out";
  if (pins_.load() != 0) return "in use (a kernel or a read)";
  if (const char* why = kept_because_.load(std::memory_order_relaxed)) return why;
  if (snapshot_) return "a copy of a tensor since overwritten, kept for the recipes that read it";
  // Evicting a few bytes frees nothing worth its recipe, which keeps what
  // it reads recomputable: an evicted loss (64 B) that the program reads
  // after the optimizer step made the step copy every parameter it wrote.
  if (block_.bytes <= kSmallestBlock && !dead_.load(std::memory_order_relaxed)) return "64 bytes or less";
  const char* problem = recipe_problem();
  // Dead (no handle, released by its segment), and no evicted value is to
  // be made from it: it can go for good, recipe or not.
  if (problem && dead_.load(std::memory_order_relaxed) && !has_evicted_reader()) return nullptr;
  return problem;
}

memory::Candidate Storage::candidate(std::uint64_t now) const {
  memory::Candidate c;
  c.bytes = block_.bytes;
  if (recipe_problem()) return c;  // dead for good: nothing will need it
  // DTR's e*: the evicted values evicting this one would make costlier too,
  // those it is made from (recomputed with it) and those made from it
  // (recomputed from it).
  const ChainCost chain = chain_cost(*recipe_);
  c.own_cost_ns = static_cast<double>(recipe_->cost_ns);
  c.cost_ns = chain.ns;
  c.evicted_producers = chain.evicted;
  for (const Dependent& d : dependents_)
    if (!d.weak.expired() && d.raw->state_.load() == kEvicted && d.raw->reads(this))
      c.cost_ns += static_cast<double>(d.raw->recipe_->cost_ns);
  c.idle = static_cast<double>(now - last_use_.load(std::memory_order_relaxed));
  c.awaited = awaited_.load(std::memory_order_relaxed) > 0;
  return c;
}

bool Storage::evict() {
  state_.store(kEvicting);  // seq_cst: then read pins_, as a pin does the reverse
  if (pins_.load() != 0) {
    state_.store(kResident);
    return false;
  }
  if (recipe_problem()) {  // dead, and no evicted value is made from it: freed for good
    free_for_good();
    return true;
  }
  // While evicted, the value needs its leaves: they are held, not watched.
  if (!hold_leaves()) {  // one died since why_not_evictable() looked
    state_.store(kResident);
    return false;
  }
  memory::release(block_);
  block_ = {};
  data_ = nullptr;
  state_.store(kEvicted);
  return true;
}

bool Storage::is_last_resort() const { return snapshot_ && block_.ptr && pins_.load() == 0; }

RecipePtr Storage::swap_recipe(RecipePtr recipe, const char* why) {
  has_recipe_.store(recipe != nullptr, std::memory_order_relaxed);
  recipe_depth_.store(recipe ? recipe->depth : 0, std::memory_order_relaxed);
  no_recipe_ = recipe ? nullptr : why;
  std::swap(recipe, recipe_);
  // Never allocated (fused away by a compiled kernel): made when needed,
  // and so it holds its leaves as an evicted value does (they are alive:
  // they were just read).
  if (recipe_ && !data_) state_.store(hold_leaves() ? kEvicted : kLost);
  return recipe;
}

std::string Storage::what() const {
  if (!recipe_) return "no recorded producer";
  const Node& made = recipe_->nodes.front();
  std::string out = detail::cat(made.out.dtype, " ", shape_str(made.out.geo.shape()), " made by ", name(made.op));
  for (std::size_t i = 1; i < recipe_->nodes.size(); ++i) out += detail::cat(", ", name(recipe_->nodes[i].op));
  return out;
}

std::uint32_t Storage::made_at() const { return recipe_ ? recipe_->site : 0; }

std::vector<Storage::Awaited> make_inputs_resident(std::span<Storage* const> inputs) {
  std::vector<Storage::Awaited> awaited;
  if (std::none_of(inputs.begin(), inputs.end(), [](const Storage* s) { return s->is_evicted(); })) return awaited;
  awaited.reserve(inputs.size());
  for (Storage* input : inputs) awaited.push_back(input->await());
  for (Storage* input : inputs)
    if (input->is_evicted()) const Storage::Pin made(*input);
  return awaited;
}

}  // namespace kiln::trace

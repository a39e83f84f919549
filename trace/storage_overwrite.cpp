// Writes in place into a storage that recipes read: the recipes are
// redirected to a copy of the old bytes, or dropped with the values only
// they want (DESIGN.md, "Writes in place"), and such a copy goes as a last
// resort when nothing else is evictable.
#include "trace/storage.h"

#include <cstring>
#include <memory>
#include <unordered_set>
#include <vector>

#include "trace/recipe.h"
#include "trace/storage_internal.h"

namespace kiln::trace {

// Under the lock. Walks the values made from this storage's bytes. One that
// only recipes hold (released by its segment, or its last handle gone
// since) would be lost, freed if resident, and then so would the values
// made from it in turn; a resident value a handle holds would keep its
// bytes without a recipe. False when an evicted value a handle may still
// read (or one being recomputed) is made from it.
bool Storage::plan_forgetting(Forgetting& plan) const {
  struct Reader {
    Storage* storage;
    long owners;  // shared_ptrs to it: handles, segments, recipes
  };
  std::vector<Reader> stack;
  std::unordered_set<const Storage*> seen;
  auto push_readers = [&](const Storage& of) {
    for (const Dependent& d : of.dependents_)
      if (!d.weak.expired() && d.raw->reads(&of)) stack.push_back({d.raw, d.weak.use_count()});
  };
  push_readers(*this);
  while (!stack.empty()) {
    const Reader r = stack.back();
    Storage* s = r.storage;
    stack.pop_back();
    if (!seen.insert(s).second) continue;
    const std::uint8_t state = s->state_.load();
    // Recipes take their shared_ptrs under the lock, so no new owner can
    // appear from them meanwhile.
    const bool only_recipes =
        s->dead_.load(std::memory_order_relaxed) || r.owners == s->held_by_recipes_.load(std::memory_order_relaxed);
    // Nothing can pin a value only recipes hold but a recomputation reading
    // it, and that one is walked here too (as kRecomputing: no plan).
    if (only_recipes && (state == kEvicted || (state == kResident && s->pins_.load() == 0))) {
      plan.lose.push_back(s);
      push_readers(*s);
    } else if (state == kResident) {
      plan.strip.push_back(s);
      // One behind a long chain of evicted producers goes only when
      // nothing else can anyway.
      if (chain_cost(*s->recipe_).evicted <= memory::kLongChain) plan.unevictable += s->block_.bytes;
    } else {
      return false;
    }
  }
  return true;
}

// Under the lock: carries out a plan_forgetting; the bytes it freed.
std::size_t Storage::forget(const Forgetting& plan, std::vector<RecipePtr>& dropped) {
  constexpr const char* why = "made from a tensor since overwritten";
  std::size_t freed = 0;
  for (Storage* s : plan.strip) dropped.push_back(s->swap_recipe(nullptr, why));
  for (Storage* s : plan.lose) {
    dropped.push_back(s->swap_recipe(nullptr, why));
    memory::remove_resident(*s);
    freed += s->free_for_good();
  }
  return freed;
}

void Storage::before_overwrite() {
  // What recipes read of this storage must not change under them: they are
  // redirected to a copy of what it holds now, which they then hold. A copy
  // of the (usually small) storage written, not a recomputation of its
  // readers: an optimizer step writes every parameter in place while the
  // activations and gradients made from the old values may be evicted.
  // Where those recipes can go instead, making fewer evictable bytes
  // unevictable than the copy would add, they go (plan_forgetting). The
  // copy can go later too, as a last resort (evict_last_resort). That is
  // the optimizer step's case: the parameter's old value was read by
  // activations evicted since, which the gradients' recipes hold, each
  // behind a chain of the whole backward pass.
  std::vector<RecipePtr> dropped;  // destroyed after the lock is released
  {
    std::lock_guard lock(memory::residency_mutex());
    bool read = false;
    for (const Dependent& d : dependents_) read |= !d.weak.expired() && d.raw->reads(this);
    Forgetting plan;
    if (read && plan_forgetting(plan) && plan.unevictable <= nbytes_) {
      forget(plan, dropped);
      read = false;
    }
    if (!read) {
      dependents_.clear();
      has_dependents_.store(false, std::memory_order_relaxed);
      return;
    }
  }
  auto before = std::make_shared<Storage>(nbytes_);
  {
    const Pin source(*this);
    const Pin target(*before);
    std::memcpy(before->data(), data(), nbytes_);
  }
  std::lock_guard lock(memory::residency_mutex());
  before->snapshot_ = true;
  for (const Dependent& d : dependents_) {
    if (d.weak.expired() || !d.raw->reads(this)) continue;
    for (Recipe::Input& in : d.raw->recipe_->inputs) {
      if (in.storage != this) continue;
      // Held, resident or evicted: nothing else holds the copy.
      in.storage = before.get();
      in.held = HeldRef(before);
      in.watch.reset();
      in.leaf = false;
    }
    before->dependents_.push_back({d.weak, d.raw});
  }
  before->has_dependents_.store(!before->dependents_.empty(), std::memory_order_release);
  dependents_.clear();
  has_dependents_.store(false, std::memory_order_relaxed);
}

// A copy made by before_overwrite goes with the recipes that read it
// (plan_forgetting), when nothing else can: nothing will need its bytes
// again, but resident values made from it can no longer be evicted.
std::size_t Storage::evict_last_resort() {
  state_.store(kEvicting);  // seq_cst: then read pins_, as a pin does the reverse
  Forgetting plan;
  if (pins_.load() != 0 || !plan_forgetting(plan)) {
    state_.store(kResident);
    return 0;
  }
  std::vector<RecipePtr> dropped;
  const std::size_t freed = forget(plan, dropped);
  bury(dropped);
  dependents_.clear();
  has_dependents_.store(false, std::memory_order_relaxed);
  return freed + free_for_good();
}

}  // namespace kiln::trace

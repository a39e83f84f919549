// Recipes: how a value the memory manager may evict is made again.
//
// While a memory budget is set, each value a segment makes keeps the nodes
// that wrote it (the one that made it whole, then any in-place updates, as
// `x.matmul(w).add_(b)` records) and the storages they read: its recipe.
// Evicted, the value is recomputed from it at its next use, its inputs
// first if they were evicted too. A recipe reads its inputs as they are when
// it runs: before the engine writes a storage in place, the recipes reading
// it are redirected to a copy of what it held (Storage::before_overwrite),
// and a value written in place itself loses its recipe. (Tensor versions,
// which count in-place writes as they are recorded, not as they run, cannot
// tell a recipe whether its inputs changed yet.)

// What a recipe holds: an input that has a recipe of its own is held (it
// may be evicted and recomputed in turn); a leaf (a parameter, a batch, any
// value with no producer) is only watched, so that a recipe never keeps it
// alive, except while the value is evicted and needs it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "trace/node.h"
#include "trace/segment.h"

namespace kiln::trace {

class Storage;

/// Recipes end at this depth of producers: a value whose inputs' chain
/// is deeper is not evictable (a value kept for long, built on step after
/// step, would otherwise hold every earlier step's values as recipes).
inline constexpr std::uint32_t kMaxRecipeDepth = 1024;

/// A recipe's strong reference to an input, counted on the input: a value
/// held by recipes alone is one the program no longer holds, which only
/// those recipes may need (Storage::before_overwrite).
class HeldRef {
 public:
  HeldRef() = default;
  explicit HeldRef(std::shared_ptr<Storage> storage);
  HeldRef(HeldRef&& other) noexcept : s_(std::move(other.s_)) {}
  HeldRef& operator=(HeldRef&& other) noexcept {
    reset();
    s_ = std::move(other.s_);
    return *this;
  }
  HeldRef(const HeldRef&) = delete;
  HeldRef& operator=(const HeldRef&) = delete;
  ~HeldRef() { reset(); }
  void reset() noexcept;
  Storage* get() const { return s_.get(); }
  const std::shared_ptr<Storage>& shared() const { return s_; }
  explicit operator bool() const { return s_ != nullptr; }

 private:
  std::shared_ptr<Storage> s_;
};

struct Recipe {
  struct Input {
    Storage* storage = nullptr;   // read under the lock: a watched leaf that exists cannot finish dying then
    HeldRef held;                 // an input with a recipe; a leaf only while the value is evicted
    std::weak_ptr<Storage> watch; // a leaf input
    bool leaf = false;
  };
  /// The nodes that write the value, in order, their operands renumbered:
  /// tensor operand values index `inputs`, the value itself is inputs.size().
  std::vector<Node> nodes;
  std::vector<Input> inputs;
  std::int64_t cost_ns = 0;   // the nodes' measured time
  std::uint32_t depth = 1;    // 1 + the deepest held input's depth
  std::uint32_t site = 0;     // the cut site of the segment that made it (profiler/cut_sites.h)
};

/// Which values of a segment may keep a recipe: made by this segment, and
/// the first node writing one writes all of its bytes without reading them.
/// (An input overwritten after the recipe is made is the business of
/// Storage::before_overwrite, which the engine calls before every write.)
class RecipeRules {
 public:
  explicit RecipeRules(const Segment& segment);
  /// The nodes writing value `value`, in order.
  std::span<const std::uint32_t> writers(std::uint32_t value) const {
    return {writer_nodes_.data() + first_[value], first_[value + 1] - first_[value]};
  }
  bool may_keep(std::uint32_t value) const { return keep_[value]; }
  /// The measured time of the value's writers so far.
  std::int64_t add_cost(std::uint32_t value, std::int64_t ns) { return cost_[value] += ns; }

 private:
  std::vector<std::uint32_t> first_;  // per value, into writer_nodes_; one more at the end
  std::vector<std::uint32_t> writer_nodes_;
  std::vector<bool> keep_;
  std::vector<std::int64_t> cost_;
};

/// After node `index` of `segment` ran (its output written, in `cost_ns`):
/// when it is the last writer of its output and `rules` allow, gives the
/// output its recipe; when it wrote into a value that had a recipe, drops
/// it (the recipe no longer makes what the storage holds). Nodes up to
/// `ran_until` have run too (the rest of a fused group): an input one of
/// them overwrote after the value's writers read it leaves it no recipe.
void after_write(const Segment& segment, RecipeRules& rules, std::uint32_t index, std::uint32_t ran_until,
                 std::int64_t cost_ns);

/// Without a budget: drops the recipe of a value `node` wrote in place
/// (values made while a budget was set keep theirs).
void forget_overwritten(const Segment& segment, const Node& node);

/// Recomputes a value: writes `target` (being recomputed by the calling
/// thread) by running `nodes`, whose tensor operands index `inputs`, the
/// target being inputs.size() (a recipe's nodes, and before them those of
/// producers made in the target's memory: Storage::recomputation).
/// Implemented by jit/ (rematerialize.cpp), which registers it; trace/
/// never includes jit/.
using Rematerializer = void (*)(Storage& target, std::span<const Node> nodes,
                                std::vector<std::shared_ptr<Storage>>& inputs);
void set_rematerializer(Rematerializer fn);

}  // namespace kiln::trace
